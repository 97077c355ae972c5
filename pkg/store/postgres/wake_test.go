package postgres_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
	"github.com/alternayte/queuebox/pkg/wake"
)

// TestWakeSourceListensOnTheWakeChannel: the PostgreSQL set offers a
// wake source that connects with the pool's settings, wakes once after
// its LISTEN and again on a NOTIFY of wake.Channel.
func TestWakeSourceListensOnTheWakeChannel(t *testing.T) {
	t.Parallel()
	s := pgtest.NewSchema(t)
	stores := &postgres.Stores{DB: s.Open(t, 2)}
	var wakes atomic.Int64
	src, ok := stores.WakeSource(func() { wakes.Add(1) }, pgtest.Quiet())
	require.True(t, ok, "PostgreSQL has LISTEN")
	require.Equal(t, "outbox-wake-listener", src.Name())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- src.Run(ctx) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()
	require.Eventually(t, func() bool { return wakes.Load() >= 1 }, 30*time.Second, time.Millisecond,
		"no wake-up after LISTEN")
	// That wake-up came after the LISTEN, so this NOTIFY reaches it.
	_, err := s.Connect(t).Exec(ctx, "SELECT pg_notify($1, '')", wake.Channel)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return wakes.Load() >= 2 }, 30*time.Second, time.Millisecond,
		"no wake-up after NOTIFY")
}
