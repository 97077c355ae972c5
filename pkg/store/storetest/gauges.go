package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Pending counts the pending rows of each topic, whatever their schedule
// (a retry waiting out its delay is pending), and no row of another
// state; and the routed ones per destination column, the others per
// topic.
func outboxPendingCountsPerTopic(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	o := outboxStore(t, db, clock)
	st, err := o.Pending(ctx)
	require.NoError(t, err)
	require.Empty(t, st.ByTopic)
	require.Zero(t, st.OldestAge)

	db.InsertOutbox(t,
		OutboxRow{Topic: "a"}, OutboxRow{Topic: "a", ScheduledAt: clock.Now().Add(time.Hour)}, OutboxRow{Topic: "b"},
		OutboxRow{Topic: "c", State: queuebox.StateSent}, OutboxRow{Topic: "c", State: queuebox.StateDead},
		OutboxRow{Topic: "b", State: queuebox.StateProcessing})
	st, err = o.Pending(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"a": 2, "b": 1}, st.ByTopic)
	require.Equal(t, map[string]int64{"a": 2, "b": 1}, st.Unrouted, "rows without a key are routed at their claim")
	require.Empty(t, st.ByDestination)

	// The deliveries of a fan-out count under their own destinations; a
	// keyed row not routed yet counts under its topic.
	fanOut(t, db, o, "payment.paid", []string{"k1", "k2"}, "ledger", "billing")
	db.InsertOutbox(t, OutboxRow{Topic: "payment.paid", Key: key("k3"), Unrouted: true},
		OutboxRow{Topic: "payment.paid", Key: key("k4"), Destination: "ledger", State: queuebox.StateSent})
	st, err = o.Pending(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"a": 2, "b": 1, "payment.paid": 5}, st.ByTopic)
	require.Equal(t, map[string]int64{"ledger": 2, "billing": 2}, st.ByDestination)
	require.Equal(t, map[string]int64{"a": 2, "b": 1, "payment.paid": 1}, st.Unrouted)
}

// NextDue reports the wait until the earliest pending row scheduled
// after the store's clock, measured on that clock: not a row already
// due, nor a row that is processing or final, and nothing when no row
// waits. A retry's delay is such a wait.
func outboxNextDueIsTheEarliestFutureRow(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	store := outboxStore(t, db, clock)
	// NextDuer is optional for wrappers of a store, not for a dialect: a
	// dialect without it would leave every retry to the poll tick (with
	// capture on, the reconciliation interval), so the suite requires it.
	o, ok := store.(queuebox.NextDuer)
	require.True(t, ok, "a dialect's outbox store implements queuebox.NextDuer")
	nextDue := func() (time.Duration, bool) {
		t.Helper()
		d, ok, err := o.NextDue(ctx, 0)
		require.NoError(t, err)
		return d, ok
	}
	_, ok = nextDue()
	require.False(t, ok, "an empty outbox has no waiting row")

	ahead := clock.Now().Add(time.Minute)
	db.InsertOutbox(t, OutboxRow{Topic: "t", ScheduledAt: clock.Now().Add(-time.Hour)},
		OutboxRow{Topic: "t", State: queuebox.StateSent, ScheduledAt: ahead},
		OutboxRow{Topic: "t", State: queuebox.StateDead, ScheduledAt: ahead},
		OutboxRow{Topic: "t", State: queuebox.StateProcessing, ScheduledAt: ahead})
	_, ok = nextDue()
	require.False(t, ok, "a due row, final rows and a processing row are not waiting")

	db.InsertOutbox(t, OutboxRow{Topic: "t", ScheduledAt: clock.Now().Add(time.Hour)},
		OutboxRow{Topic: "t", ScheduledAt: clock.Now().Add(10 * time.Minute)})
	d, ok := nextDue()
	require.True(t, ok)
	require.Equal(t, 10*time.Minute, d, "the earliest future row, on the store's clock")
	clock.Advance(20 * time.Minute)
	d, ok = nextDue()
	require.True(t, ok)
	require.Equal(t, 40*time.Minute, d, "the ten minute row is due; the hour row is next")

	claimed, err := store.Claim(ctx, 100)
	require.NoError(t, err)
	require.Len(t, claimed, 2, "the row due from the start and the ten minute row")
	retry := queuebox.Retry(5*time.Minute, "HTTP 503")
	retry.Lease = claimed[0].Lease()
	kept, err := store.Finish(ctx, []queuebox.Outcome{retry})
	require.NoError(t, err)
	require.Len(t, kept, 1)
	d, ok = nextDue()
	require.True(t, ok)
	require.Equal(t, 5*time.Minute, d, "a retry waits out its delay")

	// A row that fell due after the last claim started was not there for
	// that claim: it comes back, at zero or less, while the window
	// reaches back to its time, and not once the window starts after it.
	clock.Advance(5*time.Minute + time.Second)
	d, ok, err = o.NextDue(ctx, 2*time.Second)
	require.NoError(t, err)
	require.True(t, ok, "the retry fell due inside the window")
	require.Equal(t, -time.Second, d, "due a second ago")
	_, ok, err = o.NextDue(ctx, 500*time.Millisecond)
	require.NoError(t, err)
	require.True(t, ok, "the hour row is still ahead")
	d, _, err = o.NextDue(ctx, 500*time.Millisecond)
	require.NoError(t, err)
	require.Positive(t, d, "the retry fell due before a half-second window: the claim saw it")
}

// The inbox gauge of the oldest pending row covers pull rows as well as
// push rows: a pull backlog shows in it as a relay backlog does.
func relayOldestPendingAgeCoversPullRows(t *testing.T, db Database) {
	now := db.Now(t)
	db.InsertInbox(t,
		InboxRow{Source: "orders", IdempotencyKey: "pull", Consumption: queuebox.ConsumptionPull, CreatedAt: now.Add(-3 * time.Hour)},
		InboxRow{Source: "orders", IdempotencyKey: "push", CreatedAt: now.Add(-time.Hour)})
	age, err := relayStore(t, db, NewClock()).OldestPendingAge(context.Background())
	require.NoError(t, err)
	require.GreaterOrEqual(t, age, 3*time.Hour, "the pull row is the oldest")
	require.Less(t, age, 4*time.Hour)
}
