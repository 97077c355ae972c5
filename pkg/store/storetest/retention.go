package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The cleanup by age deletes the final rows older than its bound and no
// other: a younger final row stays, and a pending or processing row
// stays whatever its age, also under the smallest bound.
func cleanupByAgeDeletesOnlyOldFinalRows(t *testing.T, db Database, s side) {
	ctx := context.Background()
	r := retentionStore(t, db)
	now := db.Now(t)
	var oldFinal, newFinal, active []string
	for _, state := range s.final {
		oldFinal = append(oldFinal, s.insert(t, db, state, now.Add(-2*time.Hour), 2)...)
		newFinal = append(newFinal, s.insert(t, db, state, now.Add(-time.Minute), 1)...)
	}
	for _, state := range s.active {
		active = append(active, s.insert(t, db, state, now.Add(-10*365*24*time.Hour), 2)...)
	}

	n, err := s.byAge(r, ctx, time.Hour, 1000)
	require.NoError(t, err)
	require.Equal(t, int64(len(oldFinal)), n)
	require.ElementsMatch(t, slices.Concat(newFinal, active), s.ids(t, db), "the old final rows went")

	n, err = s.byAge(r, ctx, time.Millisecond, 1000)
	require.NoError(t, err)
	require.Equal(t, int64(len(newFinal)), n)
	require.ElementsMatch(t, active, s.ids(t, db), "pending and processing rows stay whatever their age")
}

// A cleanup statement deletes at most its batch; the job runs it until a
// batch comes back short.
func cleanupByAgeDeletesInBatches(t *testing.T, db Database, s side) {
	ctx := context.Background()
	r := retentionStore(t, db)
	old := db.Now(t).Add(-3 * time.Hour)
	s.insert(t, db, s.final[0], old, 3)
	s.insert(t, db, s.final[1], old, 2)
	pending := s.insert(t, db, queuebox.StatePending, old, 1)

	var batches []int64
	for range 4 {
		n, err := s.byAge(r, ctx, time.Hour, 2)
		require.NoError(t, err)
		batches = append(batches, n)
	}
	require.Equal(t, []int64{2, 2, 1, 0}, batches)
	require.Equal(t, pending, s.ids(t, db))
}

// Cleanups of several replicas delete from one table at once: none fails,
// and together they count each deleted row once. A cleanup whose rows
// another replica deleted first may stop early, so the replicas run in
// rounds until no old final row is left.
func cleanupsOfReplicasDeleteEachRowOnce(t *testing.T, db Database, s side) {
	ctx := context.Background()
	old := db.Now(t).Add(-2 * time.Hour)
	s.insert(t, db, s.final[0], old, 30)
	s.insert(t, db, s.final[1], old, 30)
	var active []string
	for _, state := range s.active {
		active = append(active, s.insert(t, db, state, old, 2)...)
	}
	replicas := []queuebox.RetentionStore{retentionStore(t, db), retentionStore(t, db), retentionStore(t, db)}

	steps := make([]func() (int64, error), len(replicas))
	for i, r := range replicas {
		steps[i] = func() (int64, error) { return s.byAge(r, ctx, time.Hour, 4) }
	}
	deleted := drainConcurrently(t, steps, func() bool { return len(s.ids(t, db)) == len(active) })
	require.Equal(t, int64(60), deleted, "each row counted once")
	require.ElementsMatch(t, active, s.ids(t, db))
}

// The outbox cleanup by age measures from the row's last state change,
// not from its creation: a row created long ago that turned final
// lately stays.
func outboxCleanupByAgeCountsFromTheLastChange(t *testing.T, db Database) {
	now := db.Now(t)
	ids := db.InsertOutbox(t,
		OutboxRow{Topic: "late", State: queuebox.StateSent, CreatedAt: now.Add(-72 * time.Hour), UpdatedAt: now.Add(-time.Minute)},
		OutboxRow{Topic: "early", State: queuebox.StateDead, CreatedAt: now.Add(-72 * time.Hour), UpdatedAt: now.Add(-2 * time.Hour)})
	n, err := retentionStore(t, db).OutboxByAge(context.Background(), time.Hour, 10)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	rows := db.OutboxRows(t)
	require.Len(t, rows, 1)
	require.Equal(t, ids[0], rows[0].ID)
}

// The cleanup by count keeps the newest rows of one state (by their last
// change) and deletes the older ones, at most a batch per statement; the
// rows of every other state stay.
func outboxCleanupByCountKeepsTheNewest(t *testing.T, db Database) {
	ctx := context.Background()
	r := retentionStore(t, db)
	now := db.Now(t)
	var rows []OutboxRow
	for _, state := range []queuebox.State{queuebox.StateSent, queuebox.StateDead} {
		for i := range 4 {
			rows = append(rows, OutboxRow{Topic: fmt.Sprintf("%s-%d", state, i), State: state,
				UpdatedAt: now.Add(-time.Duration(i+1) * time.Hour)})
		}
	}
	for _, state := range []queuebox.State{queuebox.StatePending, queuebox.StateProcessing} {
		for i := range 3 {
			rows = append(rows, OutboxRow{Topic: fmt.Sprintf("%s-%d", state, i), State: state,
				UpdatedAt: now.Add(-48 * time.Hour)})
		}
	}
	db.InsertOutbox(t, rows...)

	for _, state := range []queuebox.State{queuebox.StateSent, queuebox.StateDead} {
		var batches []int64
		for range 3 {
			n, err := r.OutboxByCount(ctx, state, 2, 1)
			require.NoError(t, err)
			batches = append(batches, n)
		}
		require.Equal(t, []int64{1, 1, 0}, batches, "%s: one row per statement, then none over the count", state)
	}
	var topics []string
	for _, row := range db.OutboxRows(t) {
		topics = append(topics, row.Topic)
	}
	require.ElementsMatch(t, []string{
		"sent-0", "sent-1", "dead-0", "dead-1", // the two newest of each final state
		"pending-0", "pending-1", "pending-2", "processing-0", "processing-1", "processing-2",
	}, topics)
	n, err := r.OutboxByCount(ctx, queuebox.StateSent, 0, 10)
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "keep 0 deletes every row of the state")
}

// drainConcurrently runs every step at once, each in a loop until it
// finds nothing, and then again in rounds until done says nothing is
// left (a step that finds its rows taken by another stops early), and
// returns what the steps counted together.
func drainConcurrently(t *testing.T, steps []func() (int64, error), done func() bool) int64 {
	t.Helper()
	var total atomic.Int64
	for round := 0; round < 10 && !done(); round++ {
		var wg sync.WaitGroup
		for _, step := range steps {
			wg.Go(func() {
				for {
					n, err := step()
					if err != nil {
						t.Errorf("step: %v", err)
						return
					}
					total.Add(n)
					if n == 0 {
						return
					}
				}
			})
		}
		wg.Wait()
	}
	require.True(t, done(), "the steps left rows behind after ten rounds")
	return total.Load()
}
