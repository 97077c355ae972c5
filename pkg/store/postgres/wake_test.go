package postgres_test

import (
	"context"
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
	wakes := make(chan struct{}, 100)
	src, ok := stores.WakeSource(func() { wakes <- struct{}{} }, pgtest.Quiet())
	require.True(t, ok, "PostgreSQL has LISTEN")
	require.Equal(t, "outbox-wake-listener", src.Name())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- src.Run(ctx) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()
	receive(t, wakes, "no wake-up after LISTEN")
	// The wake-up above came after the LISTEN, so this NOTIFY reaches it.
	_, err := s.Connect(t).Exec(ctx, "SELECT pg_notify($1, '')", wake.Channel)
	require.NoError(t, err)
	receive(t, wakes, "no wake-up after NOTIFY")
}

func receive(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal(what)
	}
}
