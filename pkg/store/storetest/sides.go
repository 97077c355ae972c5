package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// side is one of the two tables as an invariant that both share sees it:
// how a case seeds a row of a state and an age, and the store methods
// that measure and clean the table. The shared cases take a side and
// run once for each, so an invariant of both tables is written once.
type side struct {
	name string
	// final are the states a cleanup deletes; active the states it never
	// touches, whatever their age.
	final, active []queuebox.State
	// insert seeds rows of state whose age (created and, in the outbox,
	// last changed) is at, and returns their ids.
	insert func(t *testing.T, db Database, state queuebox.State, at time.Time, n int) []string
	// ids reads the ids of every row of the table.
	ids func(t *testing.T, db Database) []string
	// oldestPending is the age of the oldest pending row, by the
	// database clock, as the table's gauge reads it.
	oldestPending func(ctx context.Context, s queuebox.Stores) (time.Duration, error)
	// byAge is the table's cleanup by age.
	byAge func(r queuebox.RetentionStore, ctx context.Context, maxAge time.Duration, batch int) (int64, error)

	// The claim protocol (leases.go).
	table Table
	// claimer builds a store of the table on stores.
	claimer func(t *testing.T, stores queuebox.Stores) claimer
	// free inserts n rows that a claim takes, none in a unit of order
	// with another, and returns their ids.
	free func(t *testing.T, db Database, n int) []string
	// units inserts perUnit rows of each unit of order (key, aggregate)
	// and returns, per unit, their ids in the order the claims must take
	// them.
	units func(t *testing.T, db Database, units []string, perUnit int) map[string][]string
	// row reads one row.
	row func(t *testing.T, db Database, id string) leaseRow
	// reclaimCounts is the attempts the reclaim step adds to a row: the
	// relay counts each expired claim as one, the outbox none.
	reclaimCounts int
}

var sides = []side{
	{
		name:   "Outbox",
		final:  []queuebox.State{queuebox.StateSent, queuebox.StateDead},
		active: []queuebox.State{queuebox.StatePending, queuebox.StateProcessing},
		insert: func(t *testing.T, db Database, state queuebox.State, at time.Time, n int) []string {
			t.Helper()
			rows := make([]OutboxRow, n)
			for i := range rows {
				rows[i] = OutboxRow{Topic: "aged." + string(state), State: state, CreatedAt: at, UpdatedAt: at}
			}
			return db.InsertOutbox(t, rows...)
		},
		ids: func(t *testing.T, db Database) []string {
			return idsOf(db.OutboxRows(t), func(r OutboxState) string { return r.ID })
		},
		oldestPending: func(ctx context.Context, s queuebox.Stores) (time.Duration, error) {
			o, err := s.Outbox(lease)
			if err != nil {
				return 0, err
			}
			st, err := o.Pending(ctx)
			return st.OldestAge, err
		},
		byAge:   queuebox.RetentionStore.OutboxByAge,
		table:   OutboxTable,
		claimer: outboxClaimer,
		free: func(t *testing.T, db Database, n int) []string {
			return db.InsertOutbox(t, keyRows(nil, n)...)
		},
		units: seedOutboxUnits,
		row: func(t *testing.T, db Database, id string) leaseRow {
			r := db.Outbox(t, id)
			return leaseRow{State: r.State, ClaimToken: r.ClaimToken, LeaseExpiresAt: r.LeaseExpiresAt, LastError: r.LastError, Attempt: r.Attempt}
		},
	},
	{
		name:   "Inbox",
		final:  []queuebox.State{queuebox.StateProcessed, queuebox.StateDead},
		active: []queuebox.State{queuebox.StatePending, queuebox.StateProcessing},
		insert: func(t *testing.T, db Database, state queuebox.State, at time.Time, n int) []string {
			t.Helper()
			rows := make([]InboxRow, n)
			for i := range rows {
				rows[i] = InboxRow{Source: "orders", IdempotencyKey: nextKey(), State: state, CreatedAt: at}
			}
			return db.InsertInbox(t, rows...)
		},
		ids: func(t *testing.T, db Database) []string {
			return idsOf(db.InboxRows(t), func(r InboxState) string { return r.ID })
		},
		oldestPending: func(ctx context.Context, s queuebox.Stores) (time.Duration, error) {
			r, err := s.Relay(queuebox.RelayParams{Lease: lease, Sources: relaySources})
			if err != nil {
				return 0, err
			}
			return r.OldestPendingAge(ctx)
		},
		byAge:   queuebox.RetentionStore.InboxByAge,
		table:   InboxTable,
		claimer: relayClaimer,
		free:    seedInboxFree,
		units:   seedInboxUnits,
		row: func(t *testing.T, db Database, id string) leaseRow {
			r := db.Inbox(t, id)
			return leaseRow{State: r.State, ClaimToken: r.ClaimToken, LeaseExpiresAt: r.LeaseExpiresAt, LastError: r.LastError, Attempt: r.Attempt}
		},
		reclaimCounts: 1,
	},
}

// idsOf returns the id of each row.
func idsOf[S any](rows []S, id func(S) string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = id(r)
	}
	return out
}

var keys atomic.Int64

// nextKey is an idempotency key no other seeded row has.
func nextKey() string { return fmt.Sprintf("seeded-%d", keys.Add(1)) }

func retentionStore(t *testing.T, db Database) queuebox.RetentionStore {
	t.Helper()
	r, err := db.Stores(t, NewClock().Now).Retention()
	require.NoError(t, err)
	return r
}

// The gauge of the oldest pending row reads the age of the oldest row
// that is pending, by the database clock, and zero when none is: older
// rows in any other state do not count.
func oldestPendingAge(t *testing.T, db Database, s side) {
	ctx := context.Background()
	stores := db.Stores(t, NewClock().Now)
	age, err := s.oldestPending(ctx, stores)
	require.NoError(t, err)
	require.Zero(t, age, "no pending row")

	now := db.Now(t)
	for _, state := range append(s.final, queuebox.StateProcessing) {
		s.insert(t, db, state, now.Add(-10*time.Hour), 1)
	}
	s.insert(t, db, queuebox.StatePending, now.Add(-time.Hour), 2)
	s.insert(t, db, queuebox.StatePending, now.Add(-3*time.Hour), 1)
	age, err = s.oldestPending(ctx, stores)
	require.NoError(t, err)
	// The statement ran after the rows were stamped, so the age is at
	// least three hours; the other rows would read an hour or ten.
	require.GreaterOrEqual(t, age, 3*time.Hour, "the oldest pending row")
	require.Less(t, age, 4*time.Hour, "the oldest pending row, not an older row of another state")
}
