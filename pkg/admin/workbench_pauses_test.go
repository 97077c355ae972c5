package admin_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// A pending outbox row that its destination's pause holds back shows the
// pause (of several replicas' pauses, the one that ends last); a row due
// after every pause ends, a row of another destination and a final row
// show none. A page without a pending row of a destination reads no
// pauses.
func TestWorkbenchShowsTheDeferralOfAPendingRow(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	open, until := "5 consecutive failed attempts, the last: HTTP 500", now.Add(30*time.Second)
	row := func(id, topic string, state queuebox.State, due time.Time, seq int64) queuebox.Message {
		return queuebox.Message{Table: queuebox.TableOutbox, ID: id, State: state, Topic: topic,
			ScheduledAt: due, CreatedAt: now, Sequence: seq}
	}
	const (
		held    = "00000000-0000-0000-0000-000000000001"
		later   = "00000000-0000-0000-0000-000000000002"
		other   = "00000000-0000-0000-0000-000000000003"
		sentRow = "00000000-0000-0000-0000-000000000004"
	)
	store := &fakeWorkbench{rows: []queuebox.Message{
		row(held, "billing.paid", queuebox.StatePending, until.Add(5*time.Millisecond), 4),
		row(later, "billing.paid", queuebox.StatePending, until.Add(time.Minute), 3),
		row(other, "orders.created", queuebox.StatePending, now, 2),
		row(sentRow, "billing.paid", queuebox.StateSent, now, 1),
	}, pauses: []queuebox.DestinationPause{
		{Destination: "billing", Replica: "r2", Reason: queuebox.PauseCircuitOpen, Detail: &open, Until: until, RecordedAt: now},
		{Destination: "billing", Replica: "r1", Reason: queuebox.PauseRetryAfter, Until: now.Add(10 * time.Second), RecordedAt: now},
	}}
	e, _ := workbench(t, store)
	code, body := call(e, http.MethodGet, "/admin/messages", viewerOK, "")
	require.Equal(t, http.StatusOK, code, body)
	var page struct {
		Items []struct {
			ID       string          `json:"id"`
			Deferral json.RawMessage `json:"deferral"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &page))
	got := map[string]string{}
	for _, it := range page.Items {
		got[it.ID] = string(it.Deferral)
	}
	require.JSONEq(t, `{"reason":"circuit_open","until":"2026-12-02T07:00:30Z","detail":"`+open+`",
		"replica":"r2","recordedAt":"2026-12-02T07:00:00Z"}`, got[held])
	for _, id := range []string{later, other, sentRow} {
		require.Equal(t, "null", got[id], id)
	}

	code, body = call(e, http.MethodGet, "/admin/messages/"+held, viewerOK, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `"reason":"circuit_open"`)
	reads := store.pauseReads
	code, _ = call(e, http.MethodGet, "/admin/messages/"+sentRow, viewerOK, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, reads, store.pauseReads, "a sent row reads no pauses")
}
