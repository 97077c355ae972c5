package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// backfillSetup writes what a backfill to billing meets after billing
// joined the route of payment.paid: messages sent to ledger alone (the
// ones to backfill, returned in order), a message that already has its
// billing delivery, a row without a destination, a row of a topic the
// routes do not send to billing, and a ledger row still pending.
func backfillSetup(t *testing.T, db Database, o queuebox.OutboxStore, n int) (missing []string, fanned string) {
	t.Helper()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i%3)
	}
	missing = fanOut(t, db, o, "payment.paid", keys, "ledger")
	fanned = fanOut(t, db, o, "payment.paid", []string{"k0"}, "ledger", "billing")[0]
	fanOut(t, db, o, "audit.seen", []string{"k1"}, "ledger")
	finishAll(t, o, func(string) queuebox.Outcome { return queuebox.Sent() })
	db.InsertOutbox(t, OutboxRow{Topic: "payment.paid", State: queuebox.StateSent})
	fanOut(t, db, o, "payment.paid", []string{"k9"}, "ledger")
	return missing, fanned
}

// requireOneBillingDelivery checks that every message of ids has exactly
// one billing row, a pending copy of it in its lane, and that fanned
// still has the one it had.
func requireOneBillingDelivery(t *testing.T, db Database, ids []string, fanned string) {
	t.Helper()
	rows := db.OutboxRows(t)
	byID := map[string]OutboxState{}
	billing := map[string][]OutboxState{}
	for _, r := range rows {
		byID[r.ID] = r
		if r.Destination == "billing" && r.OriginID != "" {
			billing[r.OriginID] = append(billing[r.OriginID], r)
		}
	}
	for _, id := range ids {
		got := billing[id]
		require.Len(t, got, 1, "message %s has one billing delivery", id)
		m, d := byID[id], got[0]
		require.Equal(t, queuebox.StateSent, m.State, "the message's own row stays as it was")
		require.Equal(t, "ledger", m.Destination)
		require.Equal(t, queuebox.StatePending, d.State)
		require.Zero(t, d.Attempt)
		require.Equal(t, m.Sequence, d.Sequence, "the delivery takes the message's place in its lane")
		require.Equal(t, m.Key, d.Key)
		require.Equal(t, m.Topic, d.Topic)
		require.JSONEq(t, m.Payload, d.Payload)
		require.Equal(t, m.MaxAttempts, d.MaxAttempts)
	}
	require.Len(t, billing[fanned], 1, "a message with a billing delivery gets no second one")
	require.Len(t, billing, len(ids)+1, "no other message got a billing delivery")
}

func countDest(rows []OutboxState, dest string) int {
	n := 0
	for _, r := range rows {
		if r.Destination == dest {
			n++
		}
	}
	return n
}

// A backfill adds one delivery to the destination for each selected
// message that has none, and only for those; several concurrent
// backfills of the same selection add each delivery once, and a second
// backfill adds nothing.
func workbenchBackfillAddsEachMissingDeliveryOnce(t *testing.T, db Database) {
	ctx := context.Background()
	o := outboxStore(t, db, NewClock())
	missing, fanned := backfillSetup(t, db, o, 30)
	w := workbenchStore(t, db)
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateSent},
		Destination: "billing", UnroutedTopics: []string{"payment.paid"}, Backfill: true}
	n, err := w.Count(ctx, f, 0)
	require.NoError(t, err)
	require.EqualValues(t, len(missing), n)
	none, err := w.Count(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateDead},
		Destination: "billing", UnroutedTopics: []string{"payment.paid"}, Backfill: true}, 0)
	require.NoError(t, err)
	require.Zero(t, none, "the state filter holds: no message is dead")

	var added atomic.Int64
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			w := workbenchStore(t, db)
			for {
				n, err := w.Move(ctx, f, 4)
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					return
				}
				added.Add(n)
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, len(missing), added.Load(), "each missing delivery is added once")
	requireOneBillingDelivery(t, db, missing, fanned)
	again, err := w.Move(ctx, f, 0)
	require.NoError(t, err)
	require.Zero(t, again, "a second backfill adds nothing")
	n, err = w.Count(ctx, f, 0)
	require.NoError(t, err)
	require.Zero(t, n)
}

// A replay job of one destination that adds the missing deliveries moves
// the destination's final rows first, then adds a delivery for each
// message that has none, counting both; a backfill running beside it
// adds no second delivery of any message.
func workbenchReplayJobAddsMissingDeliveries(t *testing.T, db Database) {
	ctx := context.Background()
	o := outboxStore(t, db, NewClock())
	missing, fanned := backfillSetup(t, db, o, 25)
	w := workbenchStore(t, db)
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateSent},
		Destination: "billing", UnroutedTopics: []string{"payment.paid"}, AddMissing: true}
	moves, err := w.Count(ctx, f, 0)
	require.NoError(t, err)
	require.EqualValues(t, 2, moves, "the billing delivery of the fanned message and the row without a destination")
	job, err := w.JobCreate(ctx, f, moves+int64(len(missing)))
	require.NoError(t, err)
	require.True(t, job.Filter.AddMissing)

	var wg sync.WaitGroup
	wg.Go(func() {
		w := workbenchStore(t, db)
		bf := f
		bf.AddMissing, bf.Backfill = false, true
		for {
			n, err := w.Move(ctx, bf, 3)
			if err != nil {
				t.Error(err)
				return
			}
			if n == 0 {
				return
			}
		}
	})
	l, ok, err := w.JobClaim(ctx, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	for !job.Done {
		job, err = w.JobStep(ctx, l, 4, time.Minute)
		require.NoError(t, err)
	}
	wg.Wait()
	require.NotNil(t, job.FinishedAt)
	require.LessOrEqual(t, job.Moved, job.Matched, "the job counts what it moved and what it added, once each")
	requireOneBillingDelivery(t, db, missing, fanned)
	for _, r := range db.OutboxRows(t) {
		if r.Destination == "billing" {
			require.Equal(t, queuebox.StatePending, r.State, "every billing row was moved or added")
		}
		if r.Destination == "ledger" && r.Topic == "payment.paid" && r.Key != nil && *r.Key != "k9" {
			require.Equal(t, queuebox.StateSent, r.State, "nothing of ledger moves")
		}
	}
}

// A job whose selection is all backfill still finishes: the move walk
// finds nothing, the backfill walk adds every delivery.
func workbenchReplayJobBackfillsAlone(t *testing.T, db Database) {
	ctx := context.Background()
	o := outboxStore(t, db, NewClock())
	keys := []string{"a", "b", "a", "c", "b"}
	ids := fanOut(t, db, o, "payment.paid", keys, "ledger")
	finishAll(t, o, func(string) queuebox.Outcome { return queuebox.Sent() })
	w := workbenchStore(t, db)
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateSent},
		Destination: "billing", UnroutedTopics: []string{"payment.paid"}, AddMissing: true}
	job, err := w.JobCreate(ctx, f, int64(len(ids)))
	require.NoError(t, err)
	l, ok, err := w.JobClaim(ctx, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	for !job.Done {
		job, err = w.JobStep(ctx, l, 2, time.Minute)
		require.NoError(t, err)
	}
	require.EqualValues(t, len(ids), job.Moved)
	require.Equal(t, len(ids), countDest(db.OutboxRows(t), "billing"))
}
