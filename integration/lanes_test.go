package integration

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// Lanes through the built binaries: the order of a key holds per
// destination, so one receiver that is down holds back none of another's
// rows, even of the same key; and a route with several destinations
// delivers one row to each, independently.

// lanesConfig is a deliver configuration with one http destination per
// receiver (named by the map key, path /events) and the given routes
// block, polling fast and retrying soon.
func lanesConfig(receivers map[string]*brokertest.HTTPReceiver, routes string, extra string) string {
	var b strings.Builder
	b.WriteString("outbox:\n  pollIntervalMs: 20\n  retryBaseDelayMs: 50\ndestinations:\n")
	names := make([]string, 0, len(receivers))
	for name := range receivers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&b, "  %s:\n    type: http\n    baseUrl: %s\n    path: /events\n    timeoutMs: 5000\n", name, receivers[name].URL)
	}
	b.WriteString("routes:\n" + routes + extra)
	return b.String()
}

// accepted returns the "n" field of each body the receiver answered 2xx,
// in arrival order.
func accepted(t *testing.T, rc *brokertest.HTTPReceiver) []int {
	t.Helper()
	var out []int
	for _, r := range rc.Requests() {
		if r.Status < 200 || r.Status > 299 {
			continue
		}
		var n int
		_, err := fmt.Sscanf(strings.ReplaceAll(r.Body, " ", ""), `{"n":%d}`, &n)
		require.NoError(t, err, r.Body)
		out = append(out, n)
	}
	return out
}

// waitAccepted waits until rc accepted want (in that order, each once).
func waitAccepted(t *testing.T, rc *brokertest.HTTPReceiver, want []int, within time.Duration, what string) {
	t.Helper()
	require.Eventually(t, func() bool { return len(accepted(t, rc)) >= len(want) }, within, 20*time.Millisecond, what)
	require.Equal(t, want, accepted(t, rc), what)
}

func seq(from, to int) []int {
	var out []int
	for n := from; n <= to; n++ {
		out = append(out, n)
	}
	return out
}

// The fan-out of the spec's page, written as one row per destination with
// the same key: with analytics answering 503, audit still gets each of
// its rows of that key, in order, within seconds, while the analytics
// rows wait in their own lane.
func TestLanesReceiverDownHoldsBackNoOtherReceiver(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	analytics := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusServiceUnavailable))
	audit := brokertest.NewHTTPReceiver(t, nil)
	yaml := lanesConfig(map[string]*brokertest.HTTPReceiver{"analytics": analytics, "audit": audit}, `
  - topicPattern: "analytics.**"
    destination: analytics
  - topicPattern: "audit.**"
    destination: audit
`, "")
	startServing(t, "deliver", with(tutorialConfig(t, db, yaml),
		"QUEUEBOX_DESTINATIONS_ANALYTICS_FLOWCONTROL_CIRCUITBREAKER_OPENMS", "1000"))
	for n := 1; n <= 3; n++ {
		psqlExec(t, db, fmt.Sprintf(`BEGIN;
			INSERT INTO outbox (topic, key, payload) VALUES ('analytics.payment.succeeded', 'cust-42', '{"n":%[1]d}');
			INSERT INTO outbox (topic, key, payload) VALUES ('audit.payment.succeeded', 'cust-42', '{"n":%[1]d}');
			COMMIT;`, n))
	}
	waitAccepted(t, audit, seq(1, 3), 15*time.Second, "audit gets its rows of cust-42 in order")
	rows := psqlRows(t, db, `SELECT destination, state FROM outbox WHERE topic LIKE 'analytics.%' ORDER BY sequence`)
	require.Len(t, rows, 3)
	for _, r := range rows {
		require.Equal(t, "analytics", r[0], "a keyed row is routed to its lane")
		require.Contains(t, []string{"pending", "processing"}, r[1], "analytics rows wait in their own lane")
	}
	require.Empty(t, accepted(t, analytics))

	analytics.SetAnswer(nil)
	// The wait covers the retry backoff the rows reached meanwhile (at
	// most a minute) and the breaker's pause.
	waitAccepted(t, analytics, seq(1, 3), 90*time.Second, "analytics gets its rows in order once it is back")
}

// One row, a route with two destinations: ledger gets every row at once
// and in order while billing fails; once billing recovers it gets every
// row once, in order, with the id of the row the application wrote.
func TestLanesFanOutRouteOneDestinationFailsThenRecovers(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	ledger := brokertest.NewHTTPReceiver(t, nil)
	billing := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusBadGateway))
	yaml := lanesConfig(map[string]*brokertest.HTTPReceiver{"ledger": ledger, "billing": billing}, `
  - topicPattern: "payment.*"
    destinations: [ledger, billing]
`, "")
	startServing(t, "deliver", with(tutorialConfig(t, db, yaml),
		"QUEUEBOX_DESTINATIONS_BILLING_FLOWCONTROL_CIRCUITBREAKER_OPENMS", "1000"))
	for n := 1; n <= 5; n++ {
		psqlExec(t, db, fmt.Sprintf(`INSERT INTO outbox (topic, key, payload, max_attempts) VALUES ('payment.made', 'acct-7', '{"n":%d}', 100)`, n))
	}
	waitAccepted(t, ledger, seq(1, 5), 15*time.Second, "ledger is not held back by billing")
	require.Empty(t, accepted(t, billing))
	billing.SetAnswer(nil)
	// The wait covers the retry backoff the head reached meanwhile (at
	// most a minute) and the breaker's pause.
	waitAccepted(t, billing, seq(1, 5), 90*time.Second, "billing gets every row once, in order")

	written := map[string]bool{}
	for _, r := range psqlRows(t, db, `SELECT id FROM outbox WHERE origin_id IS NULL`) {
		written[r[0]] = true
	}
	require.Len(t, written, 5, "the application's five rows")
	for name, rc := range map[string]*brokertest.HTTPReceiver{"ledger": ledger, "billing": billing} {
		ids := map[string]bool{}
		for _, r := range rc.Requests() {
			if r.Status == http.StatusOK {
				ids[r.Header.Get("X-Message-Id")] = true
			}
		}
		require.Equal(t, written, ids, "%s receives the ids the application wrote", name)
	}
	rows := psqlRows(t, db, `SELECT destination, state, count(*) FROM outbox GROUP BY 1, 2 ORDER BY 1`)
	require.Equal(t, [][]string{{"billing", "sent", "5"}, {"ledger", "sent", "5"}}, rows, "one delivery per destination")
}

// A fan-out route with one destination behind an open circuit breaker:
// the other destination and the rows of other keys go on.
func TestLanesFanOutBesideAnOpenBreaker(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	ledger := brokertest.NewHTTPReceiver(t, nil)
	billing := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusServiceUnavailable))
	yaml := lanesConfig(map[string]*brokertest.HTTPReceiver{"ledger": ledger, "billing": billing}, `
  - topicPattern: "payment.*"
    destinations: [ledger, billing]
`, "")
	env := with(tutorialConfig(t, db, yaml),
		"QUEUEBOX_DESTINATIONS_BILLING_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD", "2",
		"QUEUEBOX_DESTINATIONS_BILLING_FLOWCONTROL_CIRCUITBREAKER_OPENMS", "60000")
	startServing(t, "deliver", env)
	var values []string
	for n := 1; n <= 40; n++ {
		values = append(values, fmt.Sprintf(`('payment.made', 'acct-%d', '{"n":%d}', 100)`, n%4, n))
	}
	psqlExec(t, db, `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES `+strings.Join(values, ", "))
	require.Eventually(t, func() bool { return len(accepted(t, ledger)) == 40 }, 20*time.Second, 20*time.Millisecond,
		"ledger gets every row while billing's breaker is open")
	got := accepted(t, ledger)
	perKey := map[int][]int{}
	for _, n := range got {
		perKey[n%4] = append(perKey[n%4], n)
	}
	for k, ns := range perKey {
		require.True(t, slices.IsSorted(ns), "key acct-%d in order: %v", k, ns)
	}
	require.Less(t, billing.Len(), 40, "the breaker stopped the attempts to billing")
}

// Two deliver replicas share a fan-out: each destination gets each row
// exactly once and each key's rows in order.
func TestLanesFanOutTwoReplicas(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	a := brokertest.NewHTTPReceiver(t, nil)
	b := brokertest.NewHTTPReceiver(t, nil)
	c := brokertest.NewHTTPReceiver(t, nil)
	yaml := lanesConfig(map[string]*brokertest.HTTPReceiver{"a": a, "b": b, "c": c}, `
  - topicPattern: "evt.**"
    destinations: [a, b, c]
`, "")
	env := tutorialConfig(t, db, yaml)
	startServing(t, "deliver", env)
	startServing(t, "deliver", env)
	const rows, keys = 60, 5
	var values []string
	for n := 1; n <= rows; n++ {
		key := "NULL"
		if n%3 != 0 {
			key = "'k-" + strconv.Itoa(n%keys) + "'"
		}
		values = append(values, fmt.Sprintf(`('evt.x', %s, '{"n":%d}')`, key, n))
	}
	psqlExec(t, db, `INSERT INTO outbox (topic, key, payload) VALUES `+strings.Join(values, ", "))
	for name, rc := range map[string]*brokertest.HTTPReceiver{"a": a, "b": b, "c": c} {
		require.Eventually(t, func() bool { return len(accepted(t, rc)) >= rows }, 30*time.Second, 20*time.Millisecond, name)
		got := accepted(t, rc)
		sorted := slices.Clone(got)
		slices.Sort(sorted)
		require.Equal(t, seq(1, rows), sorted, "%s gets each row exactly once", name)
		perKey := map[int][]int{}
		for _, n := range got {
			if n%3 != 0 {
				perKey[n%keys] = append(perKey[n%keys], n)
			}
		}
		for k, ns := range perKey {
			require.True(t, slices.IsSorted(ns), "%s: key k-%d in order: %v", name, k, ns)
		}
	}
}

// A deliver replica killed in the middle of a fan-out (kill -9, while the
// lanes still hold most of their rows) and started again: every destination gets
// every row, each key's rows in order (a row repeated after the kill only
// right after itself).
func TestLanesFanOutRestartMidway(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	a := brokertest.NewHTTPReceiver(t, nil)
	b := brokertest.NewHTTPReceiver(t, nil)
	yaml := lanesConfig(map[string]*brokertest.HTTPReceiver{"a": a, "b": b}, `
  - topicPattern: "evt.**"
    destinations: [a, b]
`, "")
	env := with(tutorialConfig(t, db, yaml), "QUEUEBOX_OUTBOX_CLAIMTIMEOUTMS", "2000")
	first := startServing(t, "deliver", env)
	const rows = 200
	var values []string
	for n := 1; n <= rows; n++ {
		values = append(values, fmt.Sprintf(`('evt.x', 'k-%d', '{"n":%d}')`, n%7, n))
	}
	psqlExec(t, db, `INSERT INTO outbox (topic, key, payload) VALUES `+strings.Join(values, ", "))
	require.Eventually(t, func() bool { return len(accepted(t, a)) > 20 }, 20*time.Second, 5*time.Millisecond)
	first.kill()
	startServing(t, "deliver", env)
	for name, rc := range map[string]*brokertest.HTTPReceiver{"a": a, "b": b} {
		require.Eventually(t, func() bool { return distinct(accepted(t, rc)) >= rows }, 60*time.Second, 20*time.Millisecond, name)
		perKey := map[int][]int{}
		for _, n := range accepted(t, rc) {
			ns := perKey[n%7]
			if len(ns) > 0 && ns[len(ns)-1] == n {
				continue // a repeat of the row in flight at the kill
			}
			perKey[n%7] = append(ns, n)
		}
		for k, ns := range perKey {
			require.True(t, slices.IsSorted(ns), "%s: key k-%d in order: %v", name, k, ns)
		}
	}
}

func distinct(ns []int) int {
	seen := map[int]bool{}
	for _, n := range ns {
		seen[n] = true
	}
	return len(seen)
}

// When the routes change, a row keeps the destination it was given: a
// keyed row routed to a destination that the new routes no longer name
// goes dead with a reason that names both, so nothing is sent where the
// configuration does not send it; a row written while no deliver ran is
// routed by the routes of the deliver that finds it.
func TestLanesRouteChangeKeepsTheGivenDestination(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	a := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusServiceUnavailable))
	b := brokertest.NewHTTPReceiver(t, nil)
	receivers := map[string]*brokertest.HTTPReceiver{"a": a, "b": b}
	before := startServing(t, "deliver", tutorialConfig(t, db, lanesConfig(receivers, `
  - topicPattern: "order.*"
    destination: a
`, "")))
	psqlExec(t, db, `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES ('order.placed', 'k', '{"n":1}', 100)`)
	require.Eventually(t, func() bool {
		rows := psqlRows(t, db, `SELECT destination, attempt FROM outbox WHERE topic = 'order.placed'`)
		return len(rows) == 1 && rows[0][0] == "a" && rows[0][1] != "0"
	}, 20*time.Second, 20*time.Millisecond, "the row is routed to a and fails there")
	before.stop(t, 30*time.Second)
	psqlExec(t, db, `INSERT INTO outbox (topic, key, payload) VALUES ('order.paid', 'k', '{"n":2}')`)

	startServing(t, "deliver", tutorialConfig(t, db, lanesConfig(receivers, `
  - topicPattern: "order.*"
    destination: b
`, "")))
	_, reason := waitOutbox(t, db, "order.placed", "dead")
	require.Equal(t, "No route sends topic order.placed to destination a any more (the routes changed after the row was routed there)", reason)
	waitOutbox(t, db, "order.paid", "sent")
	waitAccepted(t, b, []int{2}, 20*time.Second, "the row written meanwhile follows the new routes")
	require.Equal(t, [][]string{{"b"}}, psqlRows(t, db, `SELECT destination FROM outbox WHERE topic = 'order.paid'`))
}
