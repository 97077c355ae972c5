package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func replayStore(t *testing.T, db Database) queuebox.Replayer {
	t.Helper()
	r, err := db.Stores(t, NewClock().Now).Replay()
	require.NoError(t, err)
	return r
}

func at(hour, minute int) time.Time { return time.Date(2026, 9, 24, hour, minute, 0, 0, time.UTC) }

func instant(hour int) *time.Time { t := at(hour, 0); return &t }

// replayStep is one filter of replayFiltersSelectFinalRows and the rows it
// selects among the final rows the steps before it left.
type replayStep struct {
	why    string
	filter queuebox.ReplayFilter
	want   []string // names of the seeded rows
}

// The filters of a replay combine with AND: ids, topics (nil any topic,
// empty none), and created_at strictly after and before. Whatever they
// name, only final rows (sent and dead) are selected. Count counts, Topics
// lists (distinct) and Move moves exactly the selected rows; a moved row
// is pending, due at once, with its attempts, error and claim cleared,
// and keeps its id, topic, sequence and payload.
func replayFiltersSelectFinalRows(t *testing.T, db Database) {
	ctx := context.Background()
	boom := "boom"
	names := []string{"d1", "s2", "d3", "p4", "c5", "s6", "d7", "d8", "s9"}
	ids := db.InsertOutbox(t,
		OutboxRow{Topic: "invoice.paid", State: queuebox.StateDead, Attempt: 5, LastError: &boom, CreatedAt: at(9, 0)},
		OutboxRow{Topic: "invoice.paid", State: queuebox.StateSent, CreatedAt: at(13, 0)},
		OutboxRow{Topic: "invoice.item.added", State: queuebox.StateDead, Attempt: 5, LastError: &boom, CreatedAt: at(10, 0)},
		OutboxRow{Topic: "invoice.paid", Attempt: 1, CreatedAt: at(10, 0)},
		OutboxRow{Topic: "invoice.paid", State: queuebox.StateProcessing, CreatedAt: at(10, 0)},
		OutboxRow{Topic: "order.created", State: queuebox.StateSent, CreatedAt: at(11, 0)},
		OutboxRow{Topic: "order.created", State: queuebox.StateDead, CreatedAt: at(12, 0)},
		OutboxRow{Topic: "order.created", State: queuebox.StateDead, CreatedAt: at(12, 30)},
		OutboxRow{Topic: "order.created", State: queuebox.StateSent, CreatedAt: at(12, 45)})
	id := map[string]string{}
	for i, n := range names {
		id[n] = ids[i]
	}
	r := replayStore(t, db)
	for _, step := range []replayStep{
		{"an empty topic list selects nothing", queuebox.ReplayFilter{Topics: []string{}}, nil},
		{"an empty id list selects nothing", queuebox.ReplayFilter{IDs: []string{}}, nil},
		{"ids never select a pending or processing row", queuebox.ReplayFilter{IDs: []string{id["d1"], id["p4"], id["c5"]}}, []string{"d1"}},
		{"created bounds are exclusive", queuebox.ReplayFilter{CreatedAfter: instant(10), CreatedBefore: instant(12)}, []string{"s6"}},
		{"topics and a bound combine", queuebox.ReplayFilter{Topics: []string{"invoice.paid", "invoice.item.added"},
			CreatedBefore: instant(13)}, []string{"d3"}},
		{"topics with an id", queuebox.ReplayFilter{IDs: []string{id["s2"], id["d7"]}, Topics: []string{"order.created"}}, []string{"d7"}},
		{"nil filters select every final row", queuebox.ReplayFilter{}, []string{"s2", "d8", "s9"}},
		{"moved rows are no longer final", queuebox.ReplayFilter{}, nil},
	} {
		want := make([]string, len(step.want))
		topics := []string{}
		before := map[string]OutboxState{}
		for i, n := range step.want {
			want[i] = id[n]
			before[id[n]] = db.Outbox(t, id[n])
			if !slices.Contains(topics, before[id[n]].Topic) {
				topics = append(topics, before[id[n]].Topic)
			}
		}
		n, err := r.Count(ctx, step.filter, 0)
		require.NoError(t, err)
		require.Equal(t, int64(len(want)), n, "count: %s", step.why)
		got, err := r.Topics(ctx, step.filter)
		require.NoError(t, err)
		require.ElementsMatch(t, topics, got, "topics: %s", step.why)
		pendingBefore := pendingIDs(t, db)
		n, err = r.Move(ctx, step.filter, 0)
		require.NoError(t, err)
		require.Equal(t, int64(len(want)), n, "move: %s", step.why)
		moved := missingFrom(pendingBefore, pendingIDs(t, db))
		require.ElementsMatch(t, want, moved, "moved: %s", step.why)
		for _, rowID := range want {
			requireReplayed(t, db, before[rowID])
		}
	}
}

// requireReplayed checks that the replay returned the row that was
// final to pending, as good as new, and kept what identifies it.
func requireReplayed(t *testing.T, db Database, was OutboxState) {
	t.Helper()
	row := db.Outbox(t, was.ID)
	require.Equal(t, queuebox.StatePending, row.State)
	require.Zero(t, row.Attempt)
	require.Nil(t, row.LastError)
	require.Empty(t, row.ClaimToken)
	require.Nil(t, row.LeaseExpiresAt)
	require.False(t, row.ScheduledAt.After(db.Now(t)), "due at once")
	require.Equal(t, was.Topic, row.Topic)
	require.Equal(t, was.Sequence, row.Sequence)
	require.JSONEq(t, was.Payload, row.Payload)
	require.JSONEq(t, was.Headers, row.Headers)
}

// pendingIDs are the ids of the pending outbox rows.
func pendingIDs(t *testing.T, db Database) []string {
	t.Helper()
	rows := slices.DeleteFunc(db.OutboxRows(t), func(r OutboxState) bool { return r.State != queuebox.StatePending })
	return idsOf(rows, func(r OutboxState) string { return r.ID })
}

// missingFrom returns the entries of b that a lacks.
func missingFrom(a, b []string) []string {
	var out []string
	for _, s := range b {
		if !slices.Contains(a, s) {
			out = append(out, s)
		}
	}
	return out
}

// The admin route moves a wide filter in batches and bounds a request by
// counting with a limit: Move moves exactly limit rows while more are
// selected, and the next call the next ones, until a short batch; Count
// counts at most its limit (0: every row).
func replayMovesAndCountsUpToTheLimit(t *testing.T, db Database) {
	ctx := context.Background()
	db.InsertOutbox(t, deadRows("bulk", 25)...)
	others := db.InsertOutbox(t, deadRows("other", 3)...)
	r := replayStore(t, db)
	bulk := queuebox.ReplayFilter{Topics: []string{"bulk"}}
	for limit, want := range map[int]int64{0: 25, 10: 10, 25: 25, 26: 25} {
		n, err := r.Count(ctx, bulk, limit)
		require.NoError(t, err)
		require.Equal(t, want, n, "count with limit %d", limit)
	}

	var batches []int64
	for range 4 {
		n, err := r.Move(ctx, bulk, 10)
		require.NoError(t, err)
		batches = append(batches, n)
		require.Len(t, pendingIDs(t, db), int(sum(batches)), "every batch moved rows no batch before moved")
	}
	require.Equal(t, []int64{10, 10, 5, 0}, batches)
	n, err := r.Count(ctx, bulk, 0)
	require.NoError(t, err)
	require.Zero(t, n)
	for _, id := range others {
		require.Equal(t, queuebox.StateDead, db.Outbox(t, id).State, "outside the filter")
	}
}

func deadRows(topic string, n int) []OutboxRow {
	rows := make([]OutboxRow, n)
	for i := range rows {
		rows[i] = OutboxRow{Topic: topic, State: queuebox.StateDead}
	}
	return rows
}

func sum(ns []int64) int64 {
	var total int64
	for _, n := range ns {
		total += n
	}
	return total
}

// Replays of several replicas move batches of one filter at once: no row
// moves twice, so the counts add up to the rows selected.
func replaysOfReplicasMoveEachRowOnce(t *testing.T, db Database) {
	ctx := context.Background()
	db.InsertOutbox(t, deadRows("bulk", 150)...)
	bulk := queuebox.ReplayFilter{Topics: []string{"bulk"}}
	var steps []func() (int64, error)
	for range 2 {
		r := replayStore(t, db)
		for range 3 {
			steps = append(steps, func() (int64, error) {
				n, err := r.Move(ctx, bulk, 7)
				if n > 7 {
					t.Errorf("a batch of 7 moved %d rows", n)
				}
				return n, err
			})
		}
	}
	moved := drainConcurrently(t, steps, func() bool { return len(pendingIDs(t, db)) == 150 })
	require.Equal(t, int64(150), moved)
}

// A replayed row goes round again: the next claim takes it under a new
// token with its attempts from zero, and the old owner's token writes
// nothing.
func replayedRowIsClaimedAgain(t *testing.T, db Database) {
	ctx := context.Background()
	o, first := claimOnlyRow(t, db, NewClock())
	dead := queuebox.Dead("HTTP 410")
	dead.Lease = first[0].Lease()
	kept, err := o.Finish(ctx, []queuebox.Outcome{dead})
	require.NoError(t, err)
	require.Len(t, kept, 1)

	n, err := replayStore(t, db).Move(ctx, queuebox.ReplayFilter{IDs: []string{first[0].ID}}, 0)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	require.Empty(t, db.Outbox(t, first[0].ID).ClaimToken, "the replay clears the old claim")
	again, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, again, 1)
	require.Equal(t, first[0].ID, again[0].ID)
	require.Zero(t, again[0].Attempt)
	require.NotEqual(t, first[0].ClaimToken, again[0].ClaimToken)
	kept, err = o.Finish(ctx, []queuebox.Outcome{sent(first[0].Lease())})
	require.NoError(t, err)
	require.Empty(t, kept, "the old token writes nothing")
}
