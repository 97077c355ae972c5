package admin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func (f *fakeWorkbench) Attempts(_ context.Context, ids []string, limit int) ([]queuebox.Attempt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, ids)
	return f.ledger[:min(limit, len(f.ledger))], nil
}

const deliveryID = "00000000-0000-0000-0000-00000000000b"

// fanOut is a message of the payment.* route, written as rowID and
// routed to ledger, with its delivery deliveryID to billing.
func fanOut() *fakeWorkbench {
	origin := rowID
	return &fakeWorkbench{rows: []queuebox.Message{
		{Table: queuebox.TableOutbox, ID: rowID, Topic: "payment.paid", Destination: "ledger", State: queuebox.StateSent, Sequence: 2},
		{Table: queuebox.TableOutbox, ID: deliveryID, Topic: "payment.paid", Destination: "billing", OriginID: &origin,
			State: queuebox.StatePending, Attempt: 2, Sequence: 2},
	}}
}

// The attempts of a message, whichever of its rows the id names: the
// store is asked for the attempts of every delivery of the message, and
// the answer lists them as the ledger holds them, newest first, with null
// for what an attempt has none of. The viewer may read them.
func TestAttemptsOfAMessage(t *testing.T) {
	t.Parallel()
	store := fanOut()
	started := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	store.ledger = []queuebox.Attempt{
		{ID: 3, OutboxID: deliveryID, MessageID: rowID, Destination: "billing", Number: 1, StartedAt: started.Add(time.Minute),
			Duration: 1200 * time.Millisecond, Outcome: queuebox.AttemptFailed, Class: queuebox.ClassHTTP5xx, Status: "503",
			Answer: `{"error":"busy"}`, RecordedAt: started.Add(time.Minute + 2*time.Second)},
		{ID: 2, OutboxID: rowID, MessageID: rowID, Destination: "ledger", Number: 0, StartedAt: started,
			Duration: 40 * time.Millisecond, Outcome: queuebox.AttemptSent, Status: "200", RecordedAt: started.Add(time.Second)},
	}
	e, _ := workbench(t, store)
	for _, id := range []string{rowID, deliveryID} {
		code, body := call(e, http.MethodGet, "/admin/messages/"+id+"/attempts", viewerOK, "")
		require.Equal(t, http.StatusOK, code, body)
		require.JSONEq(t, `{"messageId":"`+rowID+`","limit":100,"truncated":false,"items":[
			{"id":3,"outboxId":"`+deliveryID+`","messageId":"`+rowID+`","destination":"billing","attempt":1,
			 "startedAt":"2026-12-01T10:01:00Z","durationMs":1200,"outcome":"failed","failureClass":"http_5xx",
			 "status":"503","answer":"{\"error\":\"busy\"}","recordedAt":"2026-12-01T10:01:02Z"},
			{"id":2,"outboxId":"`+rowID+`","messageId":"`+rowID+`","destination":"ledger","attempt":0,
			 "startedAt":"2026-12-01T10:00:00Z","durationMs":40,"outcome":"sent","failureClass":null,
			 "status":"200","answer":null,"recordedAt":"2026-12-01T10:00:01Z"}]}`, body)
	}
	for _, ids := range store.asked {
		require.ElementsMatch(t, []string{rowID, deliveryID}, ids, "every delivery of the message")
	}
}

// The answer holds the newest MaxAttemptsShown attempts and says when it
// left older ones out.
func TestAttemptsAreBounded(t *testing.T) {
	t.Parallel()
	store := fanOut()
	for i := range admin.MaxAttemptsShown + 5 {
		store.ledger = append(store.ledger, queuebox.Attempt{ID: int64(1000 - i), OutboxID: rowID, MessageID: rowID,
			Outcome: queuebox.AttemptDeferred, Class: queuebox.ClassCircuitOpen})
	}
	e, _ := workbench(t, store)
	code, body := call(e, http.MethodGet, "/admin/messages/"+rowID+"/attempts", "Bearer s3cret", "")
	require.Equal(t, http.StatusOK, code)
	var got struct {
		Items     []map[string]any
		Truncated bool
	}
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.Len(t, got.Items, admin.MaxAttemptsShown)
	require.True(t, got.Truncated)
	require.EqualValues(t, 1000, got.Items[0]["id"], "the newest first")
}

func TestAttemptsRefusals(t *testing.T) {
	t.Parallel()
	e, _ := workbench(t, fanOut())
	for _, tc := range []struct {
		target, auth string
		code         int
		error        string
	}{
		{"/admin/messages/" + rowID + "/attempts", "", http.StatusUnauthorized, ""},
		{"/admin/messages/not-a-uuid/attempts", "Bearer s3cret", http.StatusBadRequest, "id: "},
		{"/admin/messages/" + rowID + "/attempts?table=inbox", "Bearer s3cret", http.StatusBadRequest, "table: "},
		{"/admin/messages/" + rowID + "/attempts?limit=5", "Bearer s3cret", http.StatusBadRequest, "limit: "},
		{"/admin/messages/00000000-0000-0000-0000-0000000000ff/attempts", viewerOK, http.StatusNotFound, "No outbox row"},
	} {
		code, body := call(e, http.MethodGet, tc.target, tc.auth, "")
		require.Equal(t, tc.code, code, tc.target)
		if tc.error != "" {
			require.Contains(t, body, fmt.Sprintf(`{"error":"%s`, tc.error), tc.target)
		}
	}
}
