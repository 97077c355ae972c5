package storetest

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// A store set pings its database, and builds each of its stores, more
// than once, each working on the same tables: what the wiring of every
// role does at start. A ping whose context has ended fails.
func storesBuildEveryStoreAndPing(t *testing.T, db Database) {
	ctx := context.Background()
	s := db.Stores(t, NewClock().Now)
	require.NoError(t, s.Ping(ctx))
	ended, cancel := context.WithCancel(ctx)
	cancel()
	require.Error(t, s.Ping(ended), "a ping under an ended context")

	for range 2 {
		o, err := s.Outbox(lease)
		require.NoError(t, err)
		_, err = o.Pending(ctx)
		require.NoError(t, err)
		r, err := s.Relay(queuebox.RelayParams{Lease: lease, Sources: relaySources})
		require.NoError(t, err)
		_, err = r.OldestPendingAge(ctx)
		require.NoError(t, err)
		in, err := s.Inbox()
		require.NoError(t, err)
		receive(t, in, "orders", nextKey(), nil)
		rp, err := s.Replay()
		require.NoError(t, err)
		_, err = rp.Count(ctx, queuebox.ReplayFilter{}, 0)
		require.NoError(t, err)
		rt, err := s.Retention()
		require.NoError(t, err)
		_, err = rt.InboxByAge(ctx, lease, 10)
		require.NoError(t, err)
	}
	require.Len(t, db.InboxRows(t), 2, "each inbox store wrote to the one table")
}

// A wake source, when the dialect offers one, wakes once as soon as it
// listens (the wake-ups sent before are lost) and returns nil when its
// context ends. A dialect without one leaves delivery on its timer.
func storesWakeSourceWakesOnceItListens(t *testing.T, db Database) {
	var wakes atomic.Int64
	src, ok := db.Stores(t, NewClock().Now).WakeSource(func() { wakes.Add(1) }, slog.New(slog.DiscardHandler))
	if !ok {
		return
	}
	require.NotEmpty(t, src.Name())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx) }()
	require.Eventually(t, func() bool { return wakes.Load() >= 1 }, 30*time.Second, time.Millisecond,
		"no wake-up once the source listens")
	cancel()
	require.NoError(t, <-done)
}
