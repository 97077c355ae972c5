package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func workbenchStore(t testing.TB, db Database) queuebox.WorkbenchStore {
	t.Helper()
	w, err := db.Stores(t, NewClock().Now).Workbench()
	require.NoError(t, err)
	return w
}

// pageAll walks every page of f, limit rows at a time, and returns the
// ids in the order the pages gave them.
func pageAll(t testing.TB, w queuebox.WorkbenchStore, f queuebox.MessageFilter, limit int) []string {
	t.Helper()
	var ids []string
	var after queuebox.Cursor
	for {
		page, err := w.List(context.Background(), f, limit, after)
		require.NoError(t, err)
		for _, m := range page.Items {
			ids = append(ids, m.ID)
		}
		if page.Next == nil {
			return ids
		}
		after = *page.Next
	}
}

// Keyset pages are stable while rows are inserted: every row that was
// there when the walk started shows exactly once, and no row shows twice,
// whatever the inserters add between two pages. Both tables.
func workbenchListIsStableUnderInserts(t *testing.T, db Database) {
	var outboxRows []OutboxRow
	var inboxRows []InboxRow
	for i := range 60 {
		outboxRows = append(outboxRows, OutboxRow{Topic: "t", State: queuebox.StateDead})
		inboxRows = append(inboxRows, InboxRow{Source: "s", IdempotencyKey: fmt.Sprint("k", i), State: queuebox.StateDead})
	}
	before := map[queuebox.Table][]string{
		queuebox.TableOutbox: db.InsertOutbox(t, outboxRows...),
		queuebox.TableInbox:  db.InsertInbox(t, inboxRows...),
	}
	w := workbenchStore(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var n atomic.Int64
	for range 3 {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := n.Add(1)
				db.InsertOutbox(t, OutboxRow{Topic: "t", State: queuebox.StateDead})
				db.InsertInbox(t, InboxRow{Source: "s", IdempotencyKey: fmt.Sprint("new", i), State: queuebox.StateDead})
			}
		})
	}
	for table, ids := range before {
		seen := map[string]int{}
		for _, id := range pageAll(t, w, queuebox.MessageFilter{Table: table, States: []queuebox.State{queuebox.StateDead}}, 7) {
			seen[id]++
			require.Equal(t, 1, seen[id], "%s row %s shows twice", table, id)
		}
		for _, id := range ids {
			require.Equal(t, 1, seen[id], "%s row %s was skipped", table, id)
		}
	}
	cancel()
	wg.Wait()
	require.Positive(t, n.Load(), "the inserters ran")
}

// Each filter narrows the list; lists hide discarded rows unless asked.
func workbenchListFilters(t *testing.T, db Database) {
	ctx := context.Background()
	boom, timeout := "HTTP 500 Boom", "timeout"
	key := "cust-1"
	ids := db.InsertOutbox(t,
		OutboxRow{Topic: "a", State: queuebox.StateDead, LastError: &boom, Key: &key, CreatedAt: at(9, 0)},
		OutboxRow{Topic: "b", State: queuebox.StateDead, LastError: &timeout, CreatedAt: at(10, 0)},
		OutboxRow{Topic: "a", State: queuebox.StateSent, CreatedAt: at(11, 0)},
		OutboxRow{Topic: "a", CreatedAt: at(12, 0)})
	w := workbenchStore(t, db)
	list := func(f queuebox.MessageFilter) []string {
		f.Table = queuebox.TableOutbox
		return pageAll(t, w, f, 50)
	}
	require.Equal(t, []string{ids[3], ids[2], ids[1], ids[0]}, list(queuebox.MessageFilter{}), "newest first")
	require.Equal(t, []string{ids[1], ids[0]}, list(queuebox.MessageFilter{States: []queuebox.State{queuebox.StateDead}}))
	require.Equal(t, []string{ids[2], ids[1], ids[0]},
		list(queuebox.MessageFilter{States: []queuebox.State{queuebox.StateDead, queuebox.StateSent}}))
	require.Equal(t, []string{ids[3], ids[2], ids[0]}, list(queuebox.MessageFilter{Topics: []string{"a"}}))
	require.Empty(t, list(queuebox.MessageFilter{Topics: []string{}}))
	require.Equal(t, []string{ids[0]}, list(queuebox.MessageFilter{Key: key}))
	require.Equal(t, []string{ids[0]}, list(queuebox.MessageFilter{Error: "boom"}), "error matches in any case")
	require.Equal(t, []string{ids[2], ids[1]}, list(queuebox.MessageFilter{CreatedAfter: instant(9), CreatedBefore: instant(12)}))
	require.Equal(t, []string{ids[1]}, list(queuebox.MessageFilter{IDs: []string{ids[1]}}))
	topics, err := w.Topics(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateDead}})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a", "b"}, topics)

	require.NoError(t, w.Discard(ctx, queuebox.TableOutbox, ids[0]))
	require.Equal(t, []string{ids[1]}, list(queuebox.MessageFilter{States: []queuebox.State{queuebox.StateDead}}), "discarded rows hidden")
	require.Equal(t, []string{ids[1], ids[0]},
		list(queuebox.MessageFilter{States: []queuebox.State{queuebox.StateDead}, WithDiscarded: true}))
	n, err := w.Count(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox}, 0)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)

	m, err := w.Get(ctx, queuebox.TableOutbox, ids[0])
	require.NoError(t, err)
	require.NotNil(t, m.DiscardedAt)
	require.Equal(t, "a", m.Topic)
	require.JSONEq(t, "{}", string(m.Payload))
	require.JSONEq(t, "{}", string(m.Headers))
	_, err = w.Get(ctx, queuebox.TableOutbox, "00000000-0000-0000-0000-000000000001")
	require.ErrorIs(t, err, queuebox.ErrNotFound)

	in := db.InsertInbox(t, InboxRow{Source: "s1", IdempotencyKey: "1", State: queuebox.StateDead},
		InboxRow{Source: "s2", IdempotencyKey: "1", State: queuebox.StateDead})
	got := pageAll(t, w, queuebox.MessageFilter{Table: queuebox.TableInbox, Source: "s2"}, 50)
	require.Equal(t, []string{in[1]}, got)
}

// A resend moves one final row back to pending with its edit; a row that
// waits or runs answers ErrWrongState and does not move, a missing row
// ErrNotFound; of many concurrent resends of one row exactly one moves
// it.
func workbenchResendMovesOnlyFinalRowsOnce(t *testing.T, db Database) {
	ctx := context.Background()
	boom := "boom"
	ids := db.InsertOutbox(t,
		OutboxRow{Topic: "a", State: queuebox.StateDead, Attempt: 5, LastError: &boom, Payload: `{"v":1}`},
		OutboxRow{Topic: "a"},
		OutboxRow{Topic: "a", State: queuebox.StateProcessing},
		OutboxRow{Topic: "a", State: queuebox.StateSent})
	w := workbenchStore(t, db)
	var wins atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := w.Resend(ctx, queuebox.TableOutbox, ids[0],
				queuebox.ResendEdit{Payload: []byte(`{"v":2}`), Headers: []byte(`{"X-Fixed":"yes"}`)})
			if err == nil {
				wins.Add(1)
			} else if !errors.Is(err, queuebox.ErrWrongState) {
				t.Errorf("resend: %v", err)
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 1, wins.Load(), "one resend moves the row")
	row := db.Outbox(t, ids[0])
	require.Equal(t, queuebox.StatePending, row.State)
	require.Zero(t, row.Attempt)
	require.Nil(t, row.LastError)
	require.JSONEq(t, `{"v":2}`, row.Payload)
	require.JSONEq(t, `{"X-Fixed":"yes"}`, row.Headers)

	for _, id := range ids[1:3] {
		_, err := w.Resend(ctx, queuebox.TableOutbox, id, queuebox.ResendEdit{})
		require.ErrorIs(t, err, queuebox.ErrWrongState)
	}
	require.Equal(t, queuebox.StateProcessing, db.Outbox(t, ids[2]).State, "a held row never moves")
	res, err := w.Resend(ctx, queuebox.TableOutbox, ids[3], queuebox.ResendEdit{})
	require.NoError(t, err)
	require.JSONEq(t, "{}", string(res.OldPayload))
	require.Equal(t, res.OldPayload, res.NewPayload)
	_, err = w.Resend(ctx, queuebox.TableOutbox, "00000000-0000-0000-0000-000000000001", queuebox.ResendEdit{})
	require.ErrorIs(t, err, queuebox.ErrNotFound)

	in := db.InsertInbox(t, InboxRow{Source: "s", IdempotencyKey: "1", State: queuebox.StateDead},
		InboxRow{Source: "s", IdempotencyKey: "2", State: queuebox.StateProcessed})
	_, err = w.Resend(ctx, queuebox.TableInbox, in[0], queuebox.ResendEdit{})
	require.NoError(t, err)
	require.Equal(t, queuebox.StatePending, db.Inbox(t, in[0]).State)
	_, err = w.Resend(ctx, queuebox.TableInbox, in[1], queuebox.ResendEdit{})
	require.ErrorIs(t, err, queuebox.ErrWrongState, "a processed inbox row stays")
}

// Discard marks dead rows only, once; the overview counts the discarded
// rows apart from the dead ones.
func workbenchDiscardMarksDeadRowsOnce(t *testing.T, db Database) {
	ctx := context.Background()
	ids := db.InsertOutbox(t, OutboxRow{Topic: "a", State: queuebox.StateDead}, OutboxRow{Topic: "a", State: queuebox.StateDead},
		OutboxRow{Topic: "b", State: queuebox.StateSent}, OutboxRow{Topic: "b"})
	in := db.InsertInbox(t, InboxRow{Source: "s", IdempotencyKey: "1", State: queuebox.StateDead})
	w := workbenchStore(t, db)
	var wins atomic.Int64
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if err := w.Discard(ctx, queuebox.TableOutbox, ids[0]); err == nil {
				wins.Add(1)
			} else if !errors.Is(err, queuebox.ErrWrongState) {
				t.Errorf("discard: %v", err)
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 1, wins.Load())
	require.ErrorIs(t, w.Discard(ctx, queuebox.TableOutbox, ids[2]), queuebox.ErrWrongState)
	require.ErrorIs(t, w.Discard(ctx, queuebox.TableOutbox, "00000000-0000-0000-0000-000000000001"), queuebox.ErrNotFound)
	require.NoError(t, w.Discard(ctx, queuebox.TableInbox, in[0]))
	require.Equal(t, queuebox.StateDead, db.Outbox(t, ids[0]).State, "a discarded row stays dead")

	o, err := w.Overview(ctx)
	require.NoError(t, err)
	require.Equal(t, map[queuebox.State]int64{queuebox.StateDead: 1, queuebox.StateSent: 1, queuebox.StatePending: 1}, o.Outbox)
	require.EqualValues(t, 1, o.OutboxDiscarded)
	require.EqualValues(t, 1, o.InboxDiscarded)
	require.Equal(t, map[string]int64{"a": 1}, o.DeadByTopic)
	require.Empty(t, o.DeadBySource)
	require.Contains(t, o.OldestPendingByTopic, "b")
}

// A replay job walks its rows in batches under a lease: several runners
// on several store sets (replicas) at once move every selected row
// exactly once, a stale lease moves nothing, and the job ends done with
// its counts.
func workbenchReplayJobMovesEachRowOnce(t *testing.T, db Database) {
	ctx := context.Background()
	var rows []OutboxRow
	for i := range 1234 {
		state := queuebox.StateDead
		if i%10 == 0 {
			state = queuebox.StatePending
		}
		rows = append(rows, OutboxRow{Topic: "a", State: state})
	}
	db.InsertOutbox(t, rows...)
	w := workbenchStore(t, db)
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateDead, queuebox.StatePending}}
	matched, err := w.Count(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateDead}}, 0)
	require.NoError(t, err)
	job, err := w.JobCreate(ctx, f, matched)
	require.NoError(t, err)
	require.False(t, job.Done)
	require.Equal(t, []queuebox.State{queuebox.StateDead}, job.Filter.States, "a job keeps final states only")

	// A first runner takes one batch, then loses its lease (as a process
	// that dies): its next step moves nothing.
	first, ok, err := w.JobClaim(ctx, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	step, err := w.JobStep(ctx, first, 100, time.Millisecond)
	require.NoError(t, err)
	require.EqualValues(t, 100, step.Moved)

	var wg sync.WaitGroup
	var steps atomic.Int64
	for range 3 {
		wg.Go(func() {
			r := workbenchStore(t, db)
			deadline := time.Now().Add(2 * time.Minute)
			for time.Now().Before(deadline) {
				j, err := r.JobGet(ctx, job.ID)
				if err != nil || j.Done {
					return
				}
				l, ok, err := r.JobClaim(ctx, time.Minute)
				if err != nil || !ok {
					continue
				}
				for {
					j, err := r.JobStep(ctx, l, 100, time.Minute)
					if err != nil || j.Done {
						break
					}
					steps.Add(1)
				}
			}
		})
	}
	wg.Wait()
	_, err = w.JobStep(ctx, first, 100, time.Minute)
	require.ErrorIs(t, err, queuebox.ErrLeaseLost, "a stale lease moves nothing")
	job, err = w.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.True(t, job.Done)
	require.NotNil(t, job.FinishedAt)
	require.EqualValues(t, matched, job.Moved)
	pending := 0
	for _, r := range db.OutboxRows(t) {
		require.NotEqual(t, queuebox.StateDead, r.State)
		if r.State == queuebox.StatePending {
			pending++
		}
	}
	require.Equal(t, len(rows), pending)
	jobs, err := w.JobList(ctx, 10)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	_, err = w.JobGet(ctx, "00000000-0000-0000-0000-000000000001")
	require.ErrorIs(t, err, queuebox.ErrNotFound)
}

// workbenchReplayJobFailIsFenced ends a job with an error under its
// lease: a stale lease ends nothing, the current one ends the job with
// its reason, and an ended job is claimed no more.
func workbenchReplayJobFailIsFenced(t *testing.T, db Database) {
	ctx := context.Background()
	db.InsertOutbox(t, OutboxRow{Topic: "a", State: queuebox.StateDead})
	w := workbenchStore(t, db)
	job, err := w.JobCreate(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateDead}}, 1)
	require.NoError(t, err)
	stale, ok, err := w.JobClaim(ctx, time.Millisecond)
	require.NoError(t, err)
	require.True(t, ok)
	var current queuebox.JobLease
	require.Eventually(t, func() bool {
		current, ok, err = w.JobClaim(ctx, time.Minute)
		return err == nil && ok
	}, time.Minute, 10*time.Millisecond, "the expired lease is claimed again")

	require.ErrorIs(t, w.JobFail(ctx, stale, "stale"), queuebox.ErrLeaseLost)
	require.NoError(t, w.JobFail(ctx, current, "stopped after 5 failed batches in a row"))
	job, err = w.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.True(t, job.Done)
	require.NotNil(t, job.Error)
	require.Equal(t, "stopped after 5 failed batches in a row", *job.Error)
	require.NotNil(t, job.FinishedAt)
	require.Zero(t, job.Moved)
	_, ok, err = w.JobClaim(ctx, time.Minute)
	require.NoError(t, err)
	require.False(t, ok, "an ended job is not claimed")
	require.Equal(t, queuebox.StateDead, db.OutboxRows(t)[0].State, "the failed job moved nothing")
}
