package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// Relays of several replicas claim and forward at once: no row is
// claimed twice, no aggregate has two rows in flight, each aggregate's
// rows go in receipt order, and every row reaches the outbox once.
func relayConcurrentClaimers(t *testing.T, db Database) {
	const aggregates, perAggregate, free = 4, 8, 20
	in := inboxStore(t, db)
	want := map[string][]string{} // aggregate -> idempotency keys in receipt order
	total := int64(0)
	for n := range perAggregate {
		for _, source := range relaySources {
			for g := range aggregates {
				agg := fmt.Sprintf("%s-%d", source, g)
				k := fmt.Sprintf("%s-%d", agg, n)
				receive(t, in, source, k, key(agg))
				want[agg] = append(want[agg], k)
				total++
			}
		}
	}
	for n := range free {
		receive(t, in, relaySources[n%2], fmt.Sprintf("free-%d", n), nil)
		total++
	}
	clock := NewClock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var (
		mu        sync.Mutex
		claimed   = map[string]int{}
		order     = map[string][]string{}
		forwarded atomic.Int64
		wg        sync.WaitGroup
	)
	for range 3 {
		r := relayStore(t, db, clock)
		wg.Go(func() {
			for forwarded.Load() < total && ctx.Err() == nil {
				batch, err := r.Claim(ctx, 5)
				if err != nil {
					t.Errorf("claim: %v", err)
					return
				}
				if len(batch) == 0 {
					continue
				}
				mu.Lock()
				for _, row := range batch {
					claimed[row.ID]++
					if row.AggregateID != nil {
						order[*row.AggregateID] = append(order[*row.AggregateID], row.IdempotencyKey)
					}
				}
				mu.Unlock()
				for _, row := range batch {
					if row.AggregateID == nil {
						continue
					}
					busy, err := db.InFlight(ctx, InboxTable, *row.AggregateID)
					if err != nil {
						t.Errorf("read the rows in flight: %v", err)
					} else if !slices.Equal(busy, []string{row.ID}) {
						t.Errorf("aggregate %s: processing rows %v while this relay holds %s", *row.AggregateID, busy, row.ID)
					}
				}
				kept, err := r.Forward(ctx, forwards(rowLeases(batch)...))
				if err != nil {
					t.Errorf("forward: %v", err)
					return
				}
				if len(kept) != len(batch) {
					t.Errorf("lost %d claims without a competing owner", len(batch)-len(kept))
				}
				forwarded.Add(int64(len(kept)))
			}
		})
	}
	wg.Wait()
	require.NoError(t, ctx.Err(), "the relays did not forward every row in time")
	require.Len(t, claimed, int(total), "every row claimed")
	for id, n := range claimed {
		require.Equal(t, 1, n, "row %s claimed once", id)
	}
	require.Equal(t, want, order, "each aggregate in receipt order")
	outbox := outboxByInboxID(t, db)
	require.Len(t, outbox, int(total))
	for id, rows := range outbox {
		require.Len(t, rows, 1, "inbox row %s reaches the outbox once", id)
	}
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

// An expired lease fences its own token out of the renewal, the forward
// and the dead mark; once the reclaim step returned the rows and a new
// claim took them, the old tokens still write nothing and the new ones
// forward.
func relayStaleOrExpiredLeaseWritesNothing(t *testing.T, db Database) {
	ctx := context.Background()
	in := inboxStore(t, db)
	receive(t, in, "orders", "one", nil)
	receive(t, in, "orders", "two", nil)
	clock := NewClock()
	r := relayStore(t, db, clock)
	claimed, err := r.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, claimed, 2)
	old := rowLeases(claimed)
	writesNothing := func(leases []queuebox.Lease, why string) {
		t.Helper()
		renewed, err := r.Renew(ctx, leases)
		require.NoError(t, err)
		require.Empty(t, renewed, "renew: %s", why)
		kept, err := r.Forward(ctx, forwards(leases...))
		require.NoError(t, err)
		require.Empty(t, kept, "forward: %s", why)
		marks := make([]queuebox.DeadMark, len(leases))
		for i, l := range leases {
			marks[i] = queuebox.DeadMark{Lease: l, Reason: "late"}
		}
		kept, err = r.Dead(ctx, marks)
		require.NoError(t, err)
		require.Empty(t, kept, "dead: %s", why)
		require.Empty(t, db.OutboxRows(t), "forward: %s", why)
		for _, l := range leases {
			row := db.Inbox(t, l.ID)
			require.Equal(t, queuebox.StateProcessing, row.State, why)
			require.Nil(t, row.LastError, why)
		}
	}
	clock.Advance(lease)
	writesNothing(old, "the lease expired")

	clock.Advance(time.Millisecond) // the reclaim step takes a lease that ended before now
	n, err := r.Reclaim(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	again, err := r.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, again, 2)
	writesNothing(old, "another claim took the rows")
	kept, err := r.Forward(ctx, forwards(rowLeases(again)...))
	require.NoError(t, err)
	require.Len(t, kept, 2)
	require.Len(t, db.OutboxRows(t), 2)
}

// The relay's reclaim step returns the push rows whose lease expired and
// only those; a renewed lease stays.
func relayReclaimTakesOnlyExpiredLeases(t *testing.T, db Database) {
	ctx := context.Background()
	in := inboxStore(t, db)
	for i := range 4 {
		receive(t, in, "orders", fmt.Sprintf("evt-%d", i), nil)
	}
	clock := NewClock()
	r := relayStore(t, db, clock)
	older, err := r.Claim(ctx, 2)
	require.NoError(t, err)
	require.Len(t, older, 2)
	clock.Advance(30 * time.Second)
	younger, err := r.Claim(ctx, 2)
	require.NoError(t, err)
	require.Len(t, younger, 2)
	clock.Advance(40 * time.Second)

	n, err := r.Reclaim(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "the older claims expired, the younger did not")
	for _, row := range older {
		require.Equal(t, queuebox.StatePending, db.Inbox(t, row.ID).State)
	}
	renewed, err := r.Renew(ctx, rowLeases(younger))
	require.NoError(t, err)
	require.Len(t, renewed, 2)
	clock.Advance(40 * time.Second)
	n, err = r.Reclaim(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a renewed lease is live")
	for _, row := range younger {
		require.Equal(t, queuebox.StateProcessing, db.Inbox(t, row.ID).State)
	}
}

// The renewal of a relay and its forward or dead mark run on two
// connections over the same rows, listed in opposite orders, and must
// lock them in one order (see outboxRenewAndFinishDoNotDeadlock).
func relayRenewAndWritesDoNotDeadlock(t *testing.T, db Database) {
	ctx := context.Background()
	in := inboxStore(t, db)
	r := relayStore(t, db, NewClock())
	for name, write := range map[string]func(descending []queuebox.Lease) error{
		"forward": func(descending []queuebox.Lease) error {
			_, err := r.Forward(ctx, forwards(descending...))
			return err
		},
		"dead": func(descending []queuebox.Lease) error {
			marks := make([]queuebox.DeadMark, len(descending))
			for i, l := range descending {
				marks[i] = queuebox.DeadMark{Lease: l, Reason: "no topic"}
			}
			_, err := r.Dead(ctx, marks)
			return err
		},
	} {
		for i := range 20 {
			receive(t, in, "orders", fmt.Sprintf("%s-%d", name, i), nil)
		}
		claimed, err := r.Claim(ctx, 100)
		require.NoError(t, err)
		require.Len(t, claimed, 20)
		leases := sortedLeases(db, rowLeases(claimed))
		descending := slices.Clone(leases)
		slices.Reverse(descending)
		renewErr, writeErr := behindAHeldRow(t, db, InboxTable, leases[10].ID,
			func() error { _, err := r.Renew(ctx, leases); return err },
			func() error { return write(descending) })
		require.NoError(t, renewErr, "renewal beside the %s", name)
		require.NoError(t, writeErr, name)
		for _, l := range leases {
			require.NotEqual(t, queuebox.StateProcessing, db.Inbox(t, l.ID).State, name)
		}
	}
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
	claimed, err := r.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.Equal(t, next, claimed[0].ID, "the dead row no longer holds back its aggregate")
}
