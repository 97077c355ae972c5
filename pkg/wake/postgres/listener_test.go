package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
	wakepg "github.com/alternayte/queuebox/pkg/wake/postgres"
)

// TestListenerWakesAndRelistens runs against the local PostgreSQL: a
// notification wakes, a terminated listening backend is replaced, and the
// listener wakes once after it listens again.
func TestListenerWakesAndRelistens(t *testing.T) {
	t.Parallel()
	env := pgtest.LoadEnv(t)
	channel := fmt.Sprintf("qbt_wake_%d", rand.Int64N(1e12))
	wakes := make(chan struct{}, 100)
	l := wakepg.NewListener(wakepg.ListenerOptions{ConnString: env.PostgresURL + "&application_name=" + channel, Channel: channel,
		Wake: func() { wakes <- struct{}{} }, Logger: pgtest.Quiet(), MinBackoff: 10 * time.Millisecond})
	listening := make(chan struct{}, 10)
	wakepg.SetListening(l, func() { listening <- struct{}{} })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- l.Run(ctx) }()
	<-listening
	<-wakes // the wake after LISTEN

	admin, err := pgx.Connect(ctx, env.PostgresURL)
	require.NoError(t, err)
	defer admin.Close(context.Background())
	_, err = admin.Exec(ctx, "SELECT pg_notify($1, '')", channel)
	require.NoError(t, err)
	waitSignal(t, wakes, "no wake-up")

	_, err = admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", channel)
	require.NoError(t, err)
	<-listening
	waitSignal(t, wakes, "no wake-up") // the wake after the new LISTEN
	_, err = admin.Exec(ctx, "SELECT pg_notify($1, '')", channel)
	require.NoError(t, err)
	waitSignal(t, wakes, "no wake-up")

	cancel()
	require.NoError(t, <-done)
}

// waitSignal waits for one value on ch, failing with what after 30 s.
func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal(what)
	}
}
