package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Each replica records its own pause of a destination, a new pause
// replaces the replica's earlier one, and the workbench lists the pauses
// that have not ended by the database clock, latest end first per
// destination; an ended pause (of a replica that died) no longer shows.
func pausesRecordedPerReplicaUntilTheyEnd(t *testing.T, db Database) {
	ctx := context.Background()
	base := db.Now(t).Truncate(time.Millisecond)
	clock := &Clock{now: base.Add(-time.Hour)}
	store, err := db.Stores(t, clock.Now).Outbox(time.Minute)
	require.NoError(t, err)
	rec, ok := store.(queuebox.PauseRecorder)
	require.True(t, ok, "a dialect's outbox store implements queuebox.PauseRecorder")
	record := func(dest, replica, reason, detail string, d time.Duration) {
		t.Helper()
		require.NoError(t, rec.PauseRecord(ctx, queuebox.PauseParams{Destination: dest, Replica: replica,
			Reason: reason, Detail: detail, For: d}))
	}
	// A replica that died an hour ago with its breaker open for a minute.
	record("orders", "gone", queuebox.PauseCircuitOpen, "", time.Minute)
	clock.Advance(time.Hour)
	record("orders", "r1", queuebox.PauseCircuitOpen, "5 consecutive failed attempts, the last: HTTP 500", 10*time.Minute)
	record("orders", "r2", queuebox.PauseRetryAfter, "", time.Minute)
	record("billing", "r1", queuebox.PauseRetryAfter, "HTTP 429", 30*time.Second)

	w := workbenchStore(t, db)
	got, err := w.Pauses(ctx)
	require.NoError(t, err)
	detail := "5 consecutive failed attempts, the last: HTTP 500"
	want := []queuebox.DestinationPause{
		{Destination: "billing", Replica: "r1", Reason: queuebox.PauseRetryAfter, Until: base.Add(30 * time.Second)},
		{Destination: "orders", Replica: "r1", Reason: queuebox.PauseCircuitOpen, Detail: &detail, Until: base.Add(10 * time.Minute)},
		{Destination: "orders", Replica: "r2", Reason: queuebox.PauseRetryAfter, Until: base.Add(time.Minute)},
	}
	require.Len(t, got, len(want), "the ended pause of the dead replica does not show")
	for i, p := range got {
		require.True(t, p.Until.Equal(want[i].Until), "%s/%s ends at %v, not %v", p.Destination, p.Replica, p.Until, want[i].Until)
		require.True(t, p.RecordedAt.Equal(base))
		p.Until, p.RecordedAt = want[i].Until, time.Time{}
		if p.Detail != nil && want[i].Detail == nil {
			require.Equal(t, "HTTP 429", *p.Detail)
			p.Detail = nil
		}
		require.Equal(t, want[i], p)
	}

	// The replica's next pause replaces its earlier one.
	clock.Advance(time.Second)
	record("orders", "r1", queuebox.PauseRetryAfter, "", 2*time.Minute)
	got, err = w.Pauses(ctx)
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, "orders", got[1].Destination)
	require.Equal(t, "r1", got[1].Replica, "the latest end first")
	require.Equal(t, queuebox.PauseRetryAfter, got[1].Reason)
	require.Nil(t, got[1].Detail)
	require.True(t, got[1].Until.Equal(base.Add(time.Second+2*time.Minute)))
}
