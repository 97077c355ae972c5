package integration

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// destinationsToken is the admin token of the destinations tests.
const destinationsToken = "destinations-adm1n-t0ken"

// failingEnv routes every topic to a receiver and gives its destination
// a breaker that opens after three failures and stays open for openMs.
func failingEnv(db database, url, openMs string) map[string]string {
	return with(destinationEnv(db.env(), url),
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "10",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD", "3",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_CIRCUITBREAKER_OPENMS", openMs,
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "bearer", "QUEUEBOX_ADMIN_AUTH_TOKEN", destinationsToken)
}

// destinationsAnswer is the part of GET /admin/destinations the tests read.
type destinationsAnswer struct {
	FlowNote *string `json:"flowNote"`
	Items    []struct {
		Name                       string
		Pending                    int64
		OldestPendingAgeMs         *int64
		Sent5m, Failed5m, Failed1h int64
		Minutes                    []struct{ Sent, Failed int64 }
		Flow                       *struct {
			Breaker   string
			OpenUntil *time.Time
			Detail    *string
			Deferred  map[string]int64
		}
	}
}

// undeliveredAnswer is the part of GET /admin/undelivered the tests read.
type undeliveredAnswer struct {
	Dead, Retrying int64
	ByDestination  map[string]map[string]int64
	ByClass        map[string]int64
	Items          []struct {
		ID, State, Destination string
		FailureClass           *string
		LastStatus             *string
		LastOutcome            *string
		Attempt                int
	}
	NextCursor *string
}

// adminJSON sends GET path with the admin token, holds request and answer
// to docs/openapi.yaml, and decodes the 200 answer into v.
func adminJSON(t *testing.T, api *apiCheck, p *process, path string, v any) {
	t.Helper()
	resp, body := api.do(call{method: http.MethodGet, url: p.url(path),
		header: http.Header{"Authorization": {"Bearer " + destinationsToken}}})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.NoError(t, json.Unmarshal(body, v), string(body))
}

// TestDestinationsOfAFailingReceiver: through the built queuebox, a
// receiver answers 500 to every publish of a row with max_attempts 2, so
// its third publish (attempt 2) kills it, and that third failure opens
// the breaker. GET /admin/destinations then shows the
// breaker open until a time, the three failures in the last 5 minutes
// and the last hour, and no sent; a row written while the breaker is open
// is deferred for circuit_open. GET /admin/undelivered lists the dead row
// with its failure class http_5xx and status 500, and, once the breaker's
// probe failed on the second row, that row as retrying, with the counts
// per destination and per class of both; destination, limit and cursor
// select and page.
func TestDestinationsOfAFailingReceiver(t *testing.T) {
	t.Parallel()
	const (
		deadID  = "de5d0000-0000-4000-8000-000000000001"
		retryID = "de5d0000-0000-4000-8000-000000000002"
	)
	rc := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusInternalServerError))
	db := newDatabase(t)
	p := startServing(t, "queuebox", failingEnv(db, rc.URL, "8000"))
	api := newAPICheck(t, p.url(""))

	psqlExec(t, db, `INSERT INTO outbox (id, topic, payload, max_attempts) VALUES ('`+deadID+`', 'order.created', '{}', 2)`)
	require.Eventually(t, func() bool {
		return len(psqlRows(t, db, `SELECT 1 FROM outbox WHERE id = '`+deadID+`' AND state = 'dead'`)) == 1
	}, time.Minute, 20*time.Millisecond, "three failed publishes kill the row")
	// Written while the breaker is open, the second row is deferred (no
	// attempt spent) until the open period ends.
	psqlExec(t, db, `INSERT INTO outbox (id, topic, payload) VALUES ('`+retryID+`', 'order.paid', '{}')`)

	var d destinationsAnswer
	require.Eventually(t, func() bool {
		adminJSON(t, api, p, "/admin/destinations", &d)
		// The row is pending once its deferral is written (while deferred
		// it is processing for a moment).
		return len(d.Items) == 1 && d.Items[0].Flow != nil && d.Items[0].Flow.Deferred["circuit_open"] > 0 &&
			d.Items[0].Pending == 1
	}, time.Minute, 50*time.Millisecond, "the second row is deferred by the open breaker and waits pending")
	require.Nil(t, d.FlowNote, "queuebox runs deliver, so it shows the flow control")
	w := d.Items[0]
	require.Equal(t, "webhook", w.Name)
	require.Equal(t, "open", w.Flow.Breaker)
	require.NotNil(t, w.Flow.OpenUntil, "an open breaker says until when")
	require.True(t, w.Flow.OpenUntil.After(time.Now().Add(-time.Minute)))
	require.EqualValues(t, 3, w.Failed5m, "the three failed attempts, the dead one included")
	require.EqualValues(t, 3, w.Failed1h)
	require.Zero(t, w.Sent5m)
	require.NotEmpty(t, w.Minutes, "the chart has the minute of the failures")
	var failed int64
	for _, m := range w.Minutes {
		failed += m.Failed
	}
	require.EqualValues(t, 3, failed)
	require.NotNil(t, w.OldestPendingAgeMs)

	// The probe after the open period fails on the second row: it keeps
	// retrying, beside the dead one.
	var u undeliveredAnswer
	require.Eventually(t, func() bool {
		adminJSON(t, api, p, "/admin/undelivered?since=1h", &u)
		return u.Dead == 1 && u.Retrying == 1
	}, time.Minute, 50*time.Millisecond, "one dead row and one retrying")
	require.Equal(t, map[string]map[string]int64{"webhook": {"dead": 1, "retrying": 1}}, u.ByDestination)
	// The class is the latest ledger entry's: the dead row's failed
	// publish, and for the retrying row its failed probe or, once the
	// reopened breaker held it back, that deferral.
	require.EqualValues(t, 2, u.ByClass["http_5xx"]+u.ByClass["circuit_open"], "%v", u.ByClass)
	require.GreaterOrEqual(t, u.ByClass["http_5xx"], int64(1), "%v", u.ByClass)
	require.Len(t, u.Items, 2)
	byID := map[string]int{}
	for i, it := range u.Items {
		byID[it.ID] = i
		require.Equal(t, "webhook", it.Destination)
		require.NotNil(t, it.FailureClass)
	}
	require.Contains(t, byID, deadID)
	require.Contains(t, byID, retryID)
	dead := u.Items[byID[deadID]]
	require.Equal(t, "dead", dead.State)
	require.Equal(t, 2, dead.Attempt, "the row spent its max_attempts")
	require.Equal(t, "http_5xx", *dead.FailureClass)
	require.NotNil(t, dead.LastStatus)
	require.Equal(t, "500", *dead.LastStatus)
	require.NotNil(t, dead.LastOutcome)
	require.Equal(t, "dead", *dead.LastOutcome)
	require.Contains(t, []string{"http_5xx", "circuit_open"}, *u.Items[byID[retryID]].FailureClass)
	require.NotEqual(t, "dead", u.Items[byID[retryID]].State)

	// The filters and the cursor: one row per page, and a destination
	// nothing was sent to selects nothing.
	var first, second undeliveredAnswer
	adminJSON(t, api, p, "/admin/undelivered?since=1h&destination=webhook&limit=1", &first)
	require.Len(t, first.Items, 1)
	require.NotNil(t, first.NextCursor)
	require.EqualValues(t, 1, first.Dead, "the counts cover the whole selection, not the page")
	adminJSON(t, api, p, "/admin/undelivered?since=1h&destination=webhook&limit=1&cursor="+url.QueryEscape(*first.NextCursor), &second)
	require.Len(t, second.Items, 1)
	require.NotEqual(t, first.Items[0].ID, second.Items[0].ID)
	var none undeliveredAnswer
	adminJSON(t, api, p, "/admin/undelivered?destination=billing", &none)
	require.Empty(t, none.Items)
	require.Zero(t, none.Dead+none.Retrying)
}
