package admin_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// activityStore answers the destinations page and the undelivered view.
type activityStore struct {
	*fakeWorkbench
	activity queuebox.Activity
	page     queuebox.UndeliveredPage
	asked    []queuebox.UndeliveredFilter
}

func (s *activityStore) DestinationActivity(context.Context, time.Duration, time.Duration) (queuebox.Activity, error) {
	return s.activity, nil
}

func (s *activityStore) Undelivered(_ context.Context, f queuebox.UndeliveredFilter, _ int, _ queuebox.Cursor) (queuebox.UndeliveredPage, error) {
	s.asked = append(s.asked, f)
	return s.page, nil
}

type flowStates []queuebox.DestinationFlow

func (f flowStates) FlowStates() []queuebox.DestinationFlow { return f }

func activityBench(t *testing.T, store *activityStore, flow queuebox.FlowReader) *echo.Echo {
	t.Helper()
	cfg := enabled()
	cfg.Viewer = bearer("look")
	routeOf := func(topic string) (string, []string) { return "payment.*", []string{"billing", "ledger"} }
	wb, err := admin.NewWorkbench(cfg, store, routeOf, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	wb.SetDestinations([]string{"billing", "ledger"}, func() queuebox.FlowReader { return flow })
	e := echo.New()
	admin.Mount(e, cfg, admin.Routes{Workbench: wb}, quiet())
	return e
}

// Each configured destination with its flow control, its pending rows
// (an unrouted row counts for each destination its route sends to) and
// the ledger's minutes; the viewer may read it. Without deliver in the
// process, flow is null with a note.
func TestDestinationsPage(t *testing.T) {
	t.Parallel()
	minute := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	until := minute.Add(time.Minute)
	store := &activityStore{fakeWorkbench: &fakeWorkbench{}, activity: queuebox.Activity{
		Pending: []queuebox.PendingStat{{Topic: "payment.paid", Destination: "billing", Rows: 2, Oldest: 3 * time.Second},
			{Topic: "payment.paid", Destination: "", Rows: 1, Oldest: 5 * time.Second}},
		Minutes: []queuebox.MinuteCount{{Destination: "billing", Minute: minute, Sent: 4, Failed: 3, RecentSent: 1, RecentFailed: 3}},
	}}
	flow := flowStates{{Destination: "billing", Breaker: "open", BreakerEnabled: true, OpenUntil: &until, Detail: "HTTP 503",
		InFlight: 0, MaxInFlight: 8, Deferred: map[string]int64{"circuit_open": 2}}}
	code, body := call(activityBench(t, store, flow), http.MethodGet, "/admin/destinations", viewerOK, "")
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"windowMinutes":60,"recentMinutes":5,"flowNote":null,"items":[
		{"name":"billing","pending":3,"oldestPendingAgeMs":5000,"sent5m":1,"failed5m":3,"sent1h":4,"failed1h":3,
		 "minutes":[{"minute":"2026-12-01T10:00:00Z","sent":4,"failed":3}],
		 "flow":{"breaker":"open","breakerEnabled":true,"openUntil":"2026-12-01T10:01:00Z","pausedUntil":null,
		  "detail":"HTTP 503","inFlight":0,"maxInFlight":8,"deferred":{"circuit_open":2}}},
		{"name":"ledger","pending":1,"oldestPendingAgeMs":5000,"sent5m":0,"failed5m":0,"sent1h":0,"failed1h":0,
		 "minutes":[],"flow":null}]}`, body)

	code, body = call(activityBench(t, store, nil), http.MethodGet, "/admin/destinations", viewerOK, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `"flowNote":"This process does not run deliver`)
	require.NotContains(t, body, `"breaker"`)
}

// The undelivered view: since as a duration or an instant (24 h by
// default), a 400 naming a bad parameter, and the counts per destination
// and class with the unclassified rows apart.
func TestUndeliveredView(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	last := "HTTP 400"
	store := &activityStore{fakeWorkbench: &fakeWorkbench{}, page: queuebox.UndeliveredPage{
		Items: []queuebox.Undelivered{{Message: queuebox.Message{Table: queuebox.TableOutbox, ID: rowID, Topic: "payment.paid",
			Destination: "billing", State: queuebox.StateDead, Attempt: 3, MaxAttempts: 3, LastError: &last, Sequence: 4},
			LastOutcome: queuebox.AttemptDead, Class: queuebox.ClassHTTP4xx, Status: "400", LastAttempt: &at}},
		Counts: []queuebox.UndeliveredCount{{Destination: "billing", Class: queuebox.ClassHTTP4xx, Dead: 1},
			{Destination: "billing", Retrying: 2}},
	}}
	e := activityBench(t, store, nil)
	code, body := call(e, http.MethodGet, "/admin/undelivered?destination=billing&since=1h", viewerOK, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `"byDestination":{"billing":{"dead":1,"retrying":2}}`)
	require.Contains(t, body, `"byClass":{"http_4xx":1,"unclassified":2}`)
	require.Contains(t, body, `"failureClass":"http_4xx"`)
	require.Contains(t, body, `"lastStatus":"400"`)
	require.Contains(t, body, `"dead":1,`)
	require.Equal(t, "billing", store.asked[0].Destination)
	require.WithinDuration(t, time.Now().Add(-time.Hour), store.asked[0].Since, time.Minute)

	code, _ = call(e, http.MethodGet, "/admin/undelivered?since=2026-12-01T09:00:00Z", viewerOK, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, at.Add(-time.Hour), store.asked[1].Since)
	code, _ = call(e, http.MethodGet, "/admin/undelivered", viewerOK, "")
	require.Equal(t, http.StatusOK, code)
	require.WithinDuration(t, time.Now().Add(-24*time.Hour), store.asked[2].Since, time.Minute)

	for q, name := range map[string]string{"since=yesterday": "since", "limit=0": "limit", "cursor=x": "cursor", "bogus=1": "bogus"} {
		code, body = call(e, http.MethodGet, "/admin/undelivered?"+q, viewerOK, "")
		require.Equal(t, http.StatusBadRequest, code, q)
		require.Contains(t, body, `"error":"`+name+`:`, q)
	}
}
