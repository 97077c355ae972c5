package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// Operators act per destination, through the built binary: a fan-out
// route [ledger, billing] where billing answers 503 and every row has one
// attempt, so billing's deliveries go dead while ledger's are sent. The
// workbench shows each delivery with its destination and origin; once
// billing is healthy, a replay of billing's dead rows reaches billing
// once per row and sends ledger nothing more.
func TestLanesReplayOneDestinationOfAFanOut(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	ledger := brokertest.NewHTTPReceiver(t, nil)
	billing := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusServiceUnavailable))
	yaml := lanesConfig(map[string]*brokertest.HTTPReceiver{"ledger": ledger, "billing": billing}, `
  - topicPattern: "payment.*"
    destinations: [ledger, billing]
`, "")
	const token = "lanes-0ps-t0ken-of-the-test"
	authz := "Bearer " + token
	env := tutorialConfig(t, db, yaml)
	p := startServing(t, "deliver", with(env, "QUEUEBOX_ADMIN_ENABLED", "true",
		"QUEUEBOX_ADMIN_AUTH_TYPE", "bearer", "QUEUEBOX_ADMIN_AUTH_TOKEN", token,
		// Four 503s in a row must not open the breaker and defer the last
		// of billing's rows for 30 s: this test is about the replay.
		"QUEUEBOX_DESTINATIONS_BILLING_FLOWCONTROL_CIRCUITBREAKER_ENABLED", "false"))
	// Three rows of one key and one without a key: both ways of routing.
	psqlExec(t, db, `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES
		('payment.made', 'acct-7', '{"n":1}', 1), ('payment.made', 'acct-7', '{"n":2}', 1),
		('payment.made', 'acct-7', '{"n":3}', 1), ('payment.made', NULL, '{"n":4}', 1)`)
	require.Eventually(t, func() bool {
		rows := psqlRows(t, db, `SELECT destination, state, count(*) FROM outbox GROUP BY 1, 2 ORDER BY 1`)
		return fmt.Sprint(rows) == "[[billing dead 4] [ledger sent 4]]"
	}, 30*time.Second, 20*time.Millisecond, "ledger's deliveries sent, billing's dead after one attempt")
	require.ElementsMatch(t, seq(1, 4), accepted(t, ledger))
	ledgerCalls := len(ledger.Requests())

	// The list shows billing's dead deliveries with their origins; the
	// message view shows both deliveries of a message.
	code, body := adminCall(t, http.MethodGet, p.url("/admin/messages?state=dead&destination=billing"), authz, "")
	require.Equal(t, http.StatusOK, code, body)
	var list struct {
		Items []struct {
			ID, Destination string
			Origin          *string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	require.Len(t, list.Items, 4)
	origins := map[string]bool{}
	for _, it := range list.Items {
		require.Equal(t, "billing", it.Destination)
		if it.Origin != nil {
			origins[*it.Origin] = true
		}
	}
	require.Len(t, origins, 4, "each billing delivery names the row the application wrote")
	code, body = adminCall(t, http.MethodGet, p.url("/admin/messages/"+list.Items[0].ID), authz, "")
	require.Equal(t, http.StatusOK, code, body)
	var one struct {
		Deliveries []struct{ Destination, State string }
	}
	require.NoError(t, json.Unmarshal([]byte(body), &one))
	require.ElementsMatch(t, []struct{ Destination, State string }{{"ledger", "sent"}, {"billing", "dead"}}, one.Deliveries)

	// The CLI sees the same: billing's deliveries, the deliveries of one
	// message, and what a replay of billing alone would move.
	dead := deadList(t, env, "--destination", "billing")
	require.Len(t, dead.Items, 4)
	code, stdout, stderr := cli(t, env, "dead", "show", list.Items[0].ID, "--output", "json")
	require.Equal(t, 0, code, stdout+stderr)
	var shown struct {
		MessageID  string `json:"messageId"`
		Deliveries []struct{ Destination, State string }
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &shown), stdout)
	require.ElementsMatch(t, one.Deliveries, shown.Deliveries)
	require.True(t, origins[shown.MessageID] || shown.MessageID == list.Items[0].ID)
	code, stdout, stderr = cli(t, env, "dead", "resend", shown.MessageID, "--destination", "billing", "--dry-run", "--output", "json")
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, `"destination": "billing"`)
	require.Contains(t, stdout, `"dryRun": true`)
	code, stdout, stderr = cli(t, env, "replay", "--destination", "billing", "--dry-run", "--output", "json")
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, `"matched": 4`)

	billing.SetAnswer(nil)
	code, body, _ = post(t, p.url("/admin/replay"), `{"destination":"billing","states":["dead"]}`, "Authorization", authz)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":4}`, body, "every message has its billing delivery: none to add")
	require.Eventually(t, func() bool { return len(accepted(t, billing)) >= 4 }, 30*time.Second, 20*time.Millisecond,
		"billing gets its deliveries once it is back")
	require.Eventually(t, func() bool {
		return fmt.Sprint(psqlRows(t, db, `SELECT destination, state, count(*) FROM outbox GROUP BY 1, 2 ORDER BY 1`)) ==
			"[[billing sent 4] [ledger sent 4]]"
	}, 30*time.Second, 20*time.Millisecond, "every delivery sent")
	require.ElementsMatch(t, seq(1, 4), accepted(t, billing), "billing receives each row once")
	require.Equal(t, ledgerCalls, len(ledger.Requests()), "ledger receives nothing more")
	ids := map[string]bool{}
	for _, r := range billing.Requests() {
		if r.Status == http.StatusOK {
			ids[r.Header.Get("X-Message-Id")] = true
		}
	}
	require.Equal(t, origins, ids, "billing receives the ids the application wrote")
}

// A destination added to a route is backfilled through the built binary:
// rows sent to ledger while the route named ledger alone, then deliver
// restarted with [ledger, billing]; a replay of billing's sent rows adds
// a billing delivery of each old message (its own id as X-Message-Id, in
// each key's order) and sends ledger nothing more. A second identical
// replay adds nothing: it resends billing's sent deliveries, as a replay
// moves final rows back to pending.
func TestLanesReplayBackfillsANewDestination(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	ledger := brokertest.NewHTTPReceiver(t, nil)
	billing := brokertest.NewHTTPReceiver(t, nil)
	receivers := map[string]*brokertest.HTTPReceiver{"ledger": ledger, "billing": billing}
	const token = "backf1ll-t0ken-16"
	authz := "Bearer " + token
	adminEnv := []string{"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "bearer", "QUEUEBOX_ADMIN_AUTH_TOKEN", token}
	before := tutorialConfig(t, db, lanesConfig(receivers, `
  - topicPattern: "payment.*"
    destinations: [ledger]
`, ""))
	first := startServing(t, "deliver", with(before, adminEnv...))
	var values []string
	for n := 1; n <= 12; n++ {
		values = append(values, fmt.Sprintf(`('payment.made', 'acct-%d', '{"n":%d}')`, n%3, n))
	}
	psqlExec(t, db, `INSERT INTO outbox (topic, key, payload) VALUES `+strings.Join(values, ", "))
	require.Eventually(t, func() bool {
		return fmt.Sprint(psqlRows(t, db, `SELECT destination, state, count(*) FROM outbox GROUP BY 1, 2`)) == "[[ledger sent 12]]"
	}, 30*time.Second, 20*time.Millisecond, "ledger gets every row")
	first.stop(t, 10*time.Second)
	ledgerCalls := len(ledger.Requests())
	written := map[string]bool{}
	for _, r := range psqlRows(t, db, `SELECT id FROM outbox`) {
		written[r[0]] = true
	}

	after := tutorialConfig(t, db, lanesConfig(receivers, `
  - topicPattern: "payment.*"
    destinations: [ledger, billing]
`, ""))
	p := startServing(t, "deliver", with(after, adminEnv...))
	code, body, _ := post(t, p.url("/admin/replay"), `{"destination":"billing","states":["sent"],"dryRun":true}`, "Authorization", authz)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"wouldMove":0,"would_move":0,"wouldAdd":12}`, body)
	code, body, _ = post(t, p.url("/admin/replay"), `{"destination":"billing","states":["sent"]}`, "Authorization", authz)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":0,"added":12}`, body)
	waitBilling := func(n int) {
		require.Eventually(t, func() bool { return len(accepted(t, billing)) >= n }, 30*time.Second, 20*time.Millisecond)
		require.Eventually(t, func() bool {
			return fmt.Sprint(psqlRows(t, db, `SELECT destination, state, count(*) FROM outbox GROUP BY 1, 2 ORDER BY 1`)) ==
				"[[billing sent 12] [ledger sent 12]]"
		}, 30*time.Second, 20*time.Millisecond, "every delivery sent")
	}
	waitBilling(12)
	got := accepted(t, billing)
	require.ElementsMatch(t, seq(1, 12), got, "billing gets each old row once")
	perKey := map[int][]int{}
	for _, n := range got {
		perKey[n%3] = append(perKey[n%3], n)
	}
	for k, ns := range perKey {
		require.True(t, slices.IsSorted(ns), "key acct-%d in order: %v", k, ns)
	}
	ids := map[string]bool{}
	for _, r := range billing.Requests() {
		ids[r.Header.Get("X-Message-Id")] = true
	}
	require.Equal(t, written, ids, "billing receives the ids of the rows the application wrote")
	require.Equal(t, ledgerCalls, len(ledger.Requests()), "ledger receives nothing more")

	code, body, _ = post(t, p.url("/admin/replay"), `{"destination":"billing","states":["sent"]}`, "Authorization", authz)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":12}`, body, "a second replay adds nothing; it resends billing's deliveries")
	require.Eventually(t, func() bool { return len(accepted(t, billing)) >= 24 }, 30*time.Second, 20*time.Millisecond)
	waitBilling(24)
	require.Equal(t, 12, len(psqlRows(t, db, `SELECT id FROM outbox WHERE destination = 'billing'`)), "no delivery added twice")
	require.Equal(t, ledgerCalls, len(ledger.Requests()), "ledger still receives nothing more")
}
