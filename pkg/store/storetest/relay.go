package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// relaySources are the sources every relay of the suite is configured
// with.
var relaySources = []string{"orders", "payments"}

func relayStore(t *testing.T, db Database, clock *Clock) queuebox.RelayStore {
	t.Helper()
	r, err := db.Stores(t, clock.Now).Relay(queuebox.RelayParams{Lease: lease, Sources: relaySources})
	require.NoError(t, err)
	return r
}

func inboxStore(t *testing.T, db Database) queuebox.InboxStore {
	t.Helper()
	in, err := db.Stores(t, NewClock().Now).Inbox()
	require.NoError(t, err)
	return in
}

// receive stores one push row through the inbox store, as a source does,
// and returns its id.
func receive(t *testing.T, in queuebox.InboxStore, source, idempotencyKey string, aggregate *string) string {
	t.Helper()
	return receiveRow(t, in, queuebox.ReceivedRow{Source: source, IdempotencyKey: idempotencyKey, AggregateID: aggregate,
		Payload: []byte(fmt.Sprintf(`{"event":%q}`, idempotencyKey))})
}

func receiveRow(t *testing.T, in queuebox.InboxStore, row queuebox.ReceivedRow) string {
	t.Helper()
	id, inserted, err := in.Insert(context.Background(), row)
	require.NoError(t, err)
	require.True(t, inserted, "row %s of %s", row.IdempotencyKey, row.Source)
	return id
}

// forwardOf forwards a claimed row to topic with the x-inbox-id header,
// by which the suite finds its outbox row.
func forwardOf(l queuebox.Lease) queuebox.Forward {
	h, _ := json.Marshal(map[string]string{"x-inbox-id": l.ID})
	return queuebox.Forward{Lease: l, Topic: "inbox.forwarded", Headers: h}
}

func forwards(leases ...queuebox.Lease) queuebox.ForwardParams {
	p := queuebox.ForwardParams{MaxAttempts: 7}
	for _, l := range leases {
		p.Rows = append(p.Rows, forwardOf(l))
	}
	return p
}

func rowLeases(rows []queuebox.InboxRow) []queuebox.Lease {
	out := make([]queuebox.Lease, len(rows))
	for i, r := range rows {
		out[i] = r.Lease()
	}
	return out
}

// outboxByInboxID reads the outbox rows by their x-inbox-id header.
func outboxByInboxID(t *testing.T, db Database) map[string][]OutboxState {
	t.Helper()
	out := map[string][]OutboxState{}
	for _, row := range db.OutboxRows(t) {
		var h map[string]string
		require.NoError(t, json.Unmarshal([]byte(row.Headers), &h), "headers of %s", row.ID)
		out[h["x-inbox-id"]] = append(out[h["x-inbox-id"]], row)
	}
	return out
}

// A repeat of a source's idempotency key stores nothing and never
// overwrites the stored row; the same key in another source is another
// message.
func inboxInsertDeduplicates(t *testing.T, db Database) {
	ctx := context.Background()
	in := inboxStore(t, db)
	row := queuebox.ReceivedRow{Source: "orders", IdempotencyKey: "evt_1", Payload: []byte(`{"v":1}`)}
	first := receiveRow(t, in, row)
	require.NoError(t, uuid.Validate(first))

	row.Payload = []byte(`{"v":2}`)
	id, inserted, err := in.Insert(ctx, row)
	require.NoError(t, err)
	require.False(t, inserted, "a repeat is a duplicate")
	require.Empty(t, id)
	require.JSONEq(t, `{"v":1}`, db.Inbox(t, first).Payload, "a duplicate never overwrites the stored row")

	row.Source = "payments"
	other := receiveRow(t, in, row)
	require.NotEqual(t, first, other, "the same key in another source is a new message")
	require.Equal(t, queuebox.StatePending, db.Inbox(t, other).State)
}

// Concurrent inserts of one key, from several replicas, store one row:
// one insert reports it, every other reports a duplicate, none fails.
func inboxConcurrentInsertsOfOneKey(t *testing.T, db Database) {
	replicas := []queuebox.InboxStore{inboxStore(t, db), inboxStore(t, db)}
	var (
		wg       sync.WaitGroup
		inserted atomic.Int32
		ids      = make(chan string, 20)
	)
	for i := range 20 {
		wg.Go(func() {
			id, ok, err := replicas[i%2].Insert(context.Background(), queuebox.ReceivedRow{
				Source: "orders", IdempotencyKey: "same", Payload: []byte(fmt.Sprintf(`{"try":%d}`, i))})
			if err != nil {
				t.Errorf("insert: %v", err)
				return
			}
			if ok {
				inserted.Add(1)
				ids <- id
			}
		})
	}
	wg.Wait()
	close(ids)
	require.Equal(t, int32(1), inserted.Load())
	require.Equal(t, queuebox.StatePending, db.Inbox(t, <-ids).State)
}

// The relay claims the oldest pending row of each aggregate, and the
// next row of an aggregate only once the one before is final (processed
// or dead). Rows without an aggregate take part in no order; pull rows
// and rows of a source the relay does not know are never claimed.
func relayClaimKeepsAggregateOrder(t *testing.T, db Database) {
	ctx := context.Background()
	in := inboxStore(t, db)
	a, b := key("A"), key("B")
	a1 := receive(t, in, "orders", "a1", a)
	b1 := receive(t, in, "payments", "b1", b)
	a2 := receive(t, in, "orders", "a2", a)
	b2 := receive(t, in, "payments", "b2", b)
	a3 := receive(t, in, "orders", "a3", a)
	free := receive(t, in, "orders", "free", nil)
	receiveRow(t, in, queuebox.ReceivedRow{Source: "orders", IdempotencyKey: "pull", AggregateID: key("P"),
		Payload: []byte(`{}`), Consumption: queuebox.ConsumptionPull})
	receive(t, in, "unknown", "stranger", key("S"))
	r := relayStore(t, db, NewClock())

	claim := func(want ...string) []queuebox.InboxRow {
		t.Helper()
		got, err := r.Claim(ctx, 100)
		require.NoError(t, err)
		ids := make([]string, len(got))
		for i, row := range got {
			ids[i] = row.ID
		}
		require.ElementsMatch(t, want, ids)
		return got
	}
	first := claim(a1, b1, free)
	claim()
	byID := map[string]queuebox.InboxRow{}
	for _, row := range first {
		byID[row.ID] = row
	}
	require.Equal(t, "a1", byID[a1].IdempotencyKey)
	require.Equal(t, "A", *byID[a1].AggregateID)
	require.Equal(t, "orders", byID[a1].Source)
	kept, err := r.Forward(ctx, forwards(byID[a1].Lease(), byID[free].Lease()))
	require.NoError(t, err)
	require.Len(t, kept, 2)
	kept, err = r.Dead(ctx, []queuebox.DeadMark{{Lease: byID[b1].Lease(), Reason: "topic rendered empty"}})
	require.NoError(t, err)
	require.Equal(t, idSet(b1), kept)
	dead := db.Inbox(t, b1)
	require.Equal(t, queuebox.StateDead, dead.State)
	require.Equal(t, "topic rendered empty", *dead.LastError)
	require.Empty(t, dead.ClaimToken, "a dead row holds no claim")
	require.Nil(t, dead.LeaseExpiresAt, "a dead row holds no lease")

	second := claim(a2, b2)
	kept, err = r.Forward(ctx, forwards(rowLeases(second)...))
	require.NoError(t, err)
	require.Len(t, kept, 2)
	third := claim(a3)
	kept, err = r.Forward(ctx, forwards(rowLeases(third)...))
	require.NoError(t, err)
	require.Len(t, kept, 1)
	claim()
}

// Forward inserts exactly one outbox row per row whose fence held (topic,
// headers, the aggregate as key, the payload, max_attempts) and marks it
// processed; a row whose fence failed gets none and stays as it was. A
// second forward of the same rows writes nothing.
func relayForwardWritesOneRowPerKeptLease(t *testing.T, db Database) {
	ctx := context.Background()
	in := inboxStore(t, db)
	x := receive(t, in, "orders", "x", key("X"))
	y := receive(t, in, "payments", "y", nil)
	lost := receive(t, in, "orders", "z", key("Z"))
	r := relayStore(t, db, NewClock())
	claimed, err := r.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, claimed, 3)
	leases := map[string]queuebox.Lease{}
	for _, row := range claimed {
		leases[row.ID] = row.Lease()
	}
	stale := queuebox.Lease{ID: lost, Token: staleToken}

	kept, err := r.Forward(ctx, forwards(leases[x], leases[y], stale))
	require.NoError(t, err)
	require.Equal(t, idSet(x, y), kept)
	outbox := outboxByInboxID(t, db)
	require.Len(t, outbox, 2, "no outbox row for the lost fence")
	for id, aggregate := range map[string]*string{x: key("X"), y: nil} {
		require.Len(t, outbox[id], 1)
		row := outbox[id][0]
		require.Equal(t, "inbox.forwarded", row.Topic)
		require.Equal(t, aggregate, row.Key, "the aggregate becomes the key")
		require.JSONEq(t, db.Inbox(t, id).Payload, row.Payload)
		require.Equal(t, 7, row.MaxAttempts)
		require.Equal(t, queuebox.StatePending, row.State)
		inbox := db.Inbox(t, id)
		require.Equal(t, queuebox.StateProcessed, inbox.State)
		require.NotNil(t, inbox.ProcessedAt)
	}
	require.Equal(t, queuebox.StateProcessing, db.Inbox(t, lost).State)

	kept, err = r.Forward(ctx, forwards(leases[x], leases[y]))
	require.NoError(t, err)
	require.Empty(t, kept, "a processed row is no longer processing")
	require.Len(t, db.OutboxRows(t), 2, "and gets no second outbox row")
	kept, err = r.Forward(ctx, forwards(leases[lost]))
	require.NoError(t, err)
	require.Equal(t, idSet(lost), kept)
	require.Len(t, db.OutboxRows(t), 3)
}

// Each expired relay claim of a row counts as an attempt; the reclaim
// step marks the row dead, with a reason, once its attempt reaches
// RelayParams.MaxAttempts, so a row that no relay finishes stops holding
// back its aggregate. The rows behind it then go.
func relayExpiredClaimsEndInDead(t *testing.T, db Database) {
	ctx := context.Background()
	in := inboxStore(t, db)
	agg := "order-1"
	poison := receive(t, in, "orders", "evt-poison", &agg)
	next := receive(t, in, "orders", "evt-next", &agg)
	clock := NewClock()
	r, err := db.Stores(t, clock.Now).Relay(queuebox.RelayParams{Lease: lease, Sources: relaySources, MaxAttempts: 2})
	require.NoError(t, err)
	for attempt := 1; attempt <= 2; attempt++ {
		claimed, err := r.Claim(ctx, 10)
		require.NoError(t, err)
		require.Len(t, claimed, 1)
		require.Equal(t, poison, claimed[0].ID, "attempt %d: the head of the aggregate", attempt)
		clock.Advance(lease + time.Millisecond)
		n, err := r.Reclaim(ctx)
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
		row := db.Inbox(t, poison)
		require.Equal(t, attempt, row.Attempt)
		if attempt < 2 {
			require.Equal(t, queuebox.StatePending, row.State)
			require.Nil(t, row.LastError)
		}
	}
	row := db.Inbox(t, poison)
	require.Equal(t, queuebox.StateDead, row.State)
	require.NotNil(t, row.LastError)
	require.Contains(t, *row.LastError, "expired 2 times")
	require.Empty(t, row.ClaimToken, "a dead row holds no claim")
	require.Nil(t, row.LeaseExpiresAt)
	claimed, err := r.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.Equal(t, next, claimed[0].ID, "the dead row no longer holds back its aggregate")
}
