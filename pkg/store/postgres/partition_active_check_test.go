package postgres_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/scanfloor"
)

// On a partitioned outbox every claim, the full walks included, starts
// its read of the oldest active row at the bound the claims before it
// returned, so that a transaction open for many minutes does not make a
// claim step over every entry it keeps. A keyed row that a transaction
// commits late, with a created_at below that bound, is found by the
// claimer's active check, which runs beside the claims and lowers the
// bound: the row is claimed, and no claim reads from the start for it.
func TestRowCommittedLateBelowTheActiveBoundIsClaimed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, db := partitioned(t)
	today := pastDays(t, db)
	var clock atomic.Pointer[time.Time]
	set := func(at time.Time) { clock.Store(&at) }
	set(time.Now().Add(48 * time.Hour))
	o, err := postgres.NewOutbox(db, partitionedLayout().WithoutLedger(), time.Minute,
		postgres.WithClock(func() time.Time { return *clock.Load() }))
	require.NoError(t, err)
	insertAt(t, db, 6, 1, "pending", today.Add(2*time.Hour))
	// claim takes what is due, ends it as sent and returns the created_at
	// of the rows taken.
	claim := func() []time.Time {
		t.Helper()
		msgs, err := o.Claim(ctx, 10)
		require.NoError(t, err)
		outcomes := make([]queuebox.Outcome, len(msgs))
		var created []time.Time
		for i, m := range msgs {
			outcomes[i] = queuebox.Sent()
			outcomes[i].Lease, outcomes[i].Destination = m.Lease(), m.Destination
			created = append(created, m.CreatedAt)
		}
		_, err = o.Finish(ctx, outcomes)
		require.NoError(t, err)
		return created
	}
	for range 3 {
		require.Len(t, claim(), 1, "one lane, one head at a time")
	}

	late := today.Add(time.Hour)
	exec(t, db, `INSERT INTO outbox (topic, key, payload, destination, created_at) VALUES ('t', 'late', '{}', 'up', $1)`, late)
	require.Eventually(t, func() bool {
		next := clock.Load().Add(scanfloor.MinFullEvery)
		set(next)
		return slices.ContainsFunc(claim(), func(c time.Time) bool { return c.Equal(late) })
	}, time.Minute, 10*time.Millisecond, "the row committed late below the bound is claimed")
}
