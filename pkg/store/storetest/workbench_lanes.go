package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// fanOut inserts one keyed row per key of topic, routes each to dests
// (the first destination on the row, a delivery added for each other
// one) and returns the ids of the rows the application wrote.
func fanOut(t *testing.T, db Database, o queuebox.OutboxStore, topic string, keys []string, dests ...string) []string {
	t.Helper()
	rows := make([]OutboxRow, len(keys))
	for i, k := range keys {
		rows[i] = OutboxRow{Topic: topic, Key: key(k), Payload: fmt.Sprintf(`{"k":%q}`, k), Unrouted: true}
	}
	ids := db.InsertOutbox(t, rows...)
	as := make([]queuebox.Assignment, len(ids))
	for i, id := range ids {
		as[i] = queuebox.Assignment{ID: id, Destinations: dests}
	}
	routed, err := o.Assign(context.Background(), as)
	require.NoError(t, err)
	require.Len(t, routed, len(ids))
	return ids
}

// finishAll claims every due row and finishes each with the outcome
// outcome gives it by destination.
func finishAll(t *testing.T, o queuebox.OutboxStore, outcome func(destination string) queuebox.Outcome) {
	t.Helper()
	ctx := context.Background()
	for {
		got, err := o.Claim(ctx, 100)
		require.NoError(t, err)
		if len(got) == 0 {
			return
		}
		outs := make([]queuebox.Outcome, len(got))
		for i, m := range got {
			outs[i] = outcome(m.Destination)
			outs[i].Lease, outs[i].Destination = m.Lease(), m.Destination
		}
		_, err = o.Finish(ctx, outs)
		require.NoError(t, err)
	}
}

// The destination filter selects one destination's deliveries by the
// destination column, and the rows without one only through the topics
// the caller names; a message is its row and its deliveries. A move of
// one destination's rows moves nothing of the other destination, keeps
// each row's id, sequence, destination and origin, and gives a row that
// had no destination the one it was moved for.
func workbenchDestinationSelectsOneDelivery(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	o := outboxStore(t, db, clock)
	ids := fanOut(t, db, o, "payment.paid", []string{"k1", "k2"}, "ledger", "billing")
	finishAll(t, o, func(d string) queuebox.Outcome {
		if d == "billing" {
			return queuebox.Dead("HTTP 503")
		}
		return queuebox.Sent()
	})
	// A row from before lanes: final, with no destination.
	old := db.InsertOutbox(t, OutboxRow{Topic: "payment.paid", State: queuebox.StateDead})[0]
	other := db.InsertOutbox(t, OutboxRow{Topic: "audit.seen", State: queuebox.StateDead})[0]
	byDest := map[string][]string{}
	origins := map[string]string{}
	for _, r := range db.OutboxRows(t) {
		byDest[r.Destination] = append(byDest[r.Destination], r.ID)
		origins[r.ID] = r.OriginID
	}
	require.Len(t, byDest["billing"], 2)
	w := workbenchStore(t, db)
	list := func(f queuebox.MessageFilter) []string {
		f.Table = queuebox.TableOutbox
		return pageAll(t, w, f, 50)
	}
	require.ElementsMatch(t, byDest["billing"], list(queuebox.MessageFilter{Destination: "billing"}))
	require.ElementsMatch(t, ids, list(queuebox.MessageFilter{Destination: "ledger"}), "the origin rows went to ledger")
	require.ElementsMatch(t, append([]string{old}, byDest["billing"]...),
		list(queuebox.MessageFilter{Destination: "billing", UnroutedTopics: []string{"payment.paid"}}),
		"a row without a destination counts through its topic")
	require.Empty(t, list(queuebox.MessageFilter{Destination: "nowhere", UnroutedTopics: []string{"missing"}}))
	require.Len(t, list(queuebox.MessageFilter{UnroutedTopics: []string{"payment.paid"}}), 6,
		"UnroutedTopics alone narrows nothing")

	msg := list(queuebox.MessageFilter{Message: ids[0]})
	require.Len(t, msg, 2, "the row and its delivery")
	require.Contains(t, msg, ids[0])
	for _, id := range msg {
		m, err := w.Get(ctx, queuebox.TableOutbox, id)
		require.NoError(t, err)
		require.Equal(t, ids[0], m.MessageID())
		if id == ids[0] {
			require.Nil(t, m.OriginID)
			require.Equal(t, "ledger", m.Destination)
			require.Equal(t, queuebox.StateSent, m.State)
		} else {
			require.Equal(t, ids[0], *m.OriginID)
			require.Equal(t, "billing", m.Destination)
			require.Equal(t, queuebox.StateDead, m.State)
		}
	}
	page, err := w.List(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, Message: ids[1], Destination: "billing"}, 10, queuebox.Cursor{})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	require.Equal(t, "billing", page.Items[0].Destination)
	require.Equal(t, ids[1], *page.Items[0].OriginID)

	n, err := w.Count(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, Destination: "billing",
		UnroutedTopics: []string{"payment.paid"}}, 0)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)

	before := map[string]OutboxState{}
	for _, r := range db.OutboxRows(t) {
		before[r.ID] = r
	}
	moved, err := w.Move(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, Destination: "billing",
		UnroutedTopics: []string{"payment.paid"}, States: []queuebox.State{queuebox.StateDead}}, 100)
	require.NoError(t, err)
	require.EqualValues(t, 3, moved)
	for _, r := range db.OutboxRows(t) {
		b := before[r.ID]
		switch r.ID {
		case old:
			require.Equal(t, queuebox.StatePending, r.State)
			require.Equal(t, "billing", r.Destination, "a row without a destination goes to the one it was moved for")
		case other:
			require.Equal(t, queuebox.StateDead, r.State)
			require.Empty(t, r.Destination)
		default:
			if b.Destination == "billing" {
				require.Equal(t, queuebox.StatePending, r.State)
				require.Zero(t, r.Attempt)
			} else {
				require.Equal(t, queuebox.StateSent, r.State, "nothing of ledger moves")
			}
			require.Equal(t, b.Destination, r.Destination, "a moved row keeps its destination")
			require.Equal(t, b.Sequence, r.Sequence, "and its sequence")
			require.Equal(t, b.OriginID, r.OriginID, "and its origin")
		}
	}

	// A replay job of one destination's sent rows: the same selection, in
	// batches.
	job, err := w.JobCreate(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, Destination: "ledger",
		States: []queuebox.State{queuebox.StateSent}}, 2)
	require.NoError(t, err)
	l, ok, err := w.JobClaim(ctx, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, job.ID, l.JobID)
	for !job.Done {
		job, err = w.JobStep(ctx, l, 1, time.Minute)
		require.NoError(t, err)
	}
	require.EqualValues(t, 2, job.Moved)
	for _, id := range ids {
		r := db.Outbox(t, id)
		require.Equal(t, queuebox.StatePending, r.State)
		require.Equal(t, "ledger", r.Destination)
	}
}

// The deliveries of a fan-out share their origin's sequence, so the
// outbox list pages by sequence and id: every row shows once, whatever
// the page size, newest sequence first and the rows of one sequence in
// the database's id order. An old cursor, with a sequence and no id,
// starts after every row of its sequence.
func workbenchListPagesThroughSharedSequences(t *testing.T, db Database) {
	o := outboxStore(t, db, NewClock())
	fanOut(t, db, o, "payment.paid", []string{"a", "b", "c", "d"}, "ledger", "billing", "archive")
	w := workbenchStore(t, db)
	all := db.OutboxRows(t)
	require.Len(t, all, 12)
	seqOf := map[string]int64{}
	for _, r := range all {
		seqOf[r.ID] = r.Sequence
	}
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox}
	whole := pageAll(t, w, f, 100)
	require.Len(t, whole, 12)
	for i := 1; i < len(whole); i++ {
		a, b := whole[i-1], whole[i]
		require.GreaterOrEqual(t, seqOf[a], seqOf[b], "newest sequence first")
		if seqOf[a] == seqOf[b] {
			require.Positive(t, db.CompareIDs(a, b), "one sequence's rows by id, highest first")
		}
	}
	for _, limit := range []int{1, 2, 4, 5} {
		require.Equal(t, whole, pageAll(t, w, f, limit), "pages of %d rows", limit)
	}
	page, err := w.List(context.Background(), f, 100, queuebox.Cursor{Sequence: seqOf[whole[0]]})
	require.NoError(t, err)
	require.Equal(t, whole[3:], idsOf(page.Items, func(m queuebox.Message) string { return m.ID }), "an old cursor skips its whole sequence")
}
