package wake

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

func TestNotifierCoalescesABurst(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var sends atomic.Int32
	exec := func(ctx context.Context, sql string, args ...any) error {
		require.Equal(t, notifySQL, sql)
		require.Equal(t, []any{"chan_a"}, args)
		if sends.Add(1) == 1 {
			<-release // the first NOTIFY hangs while the burst arrives
		}
		return nil
	}
	sent := make(chan struct{}, 10)
	n := NewNotifier(exec, "chan_a", pgtest.Quiet(), func() { sent <- struct{}{} })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- n.Run(ctx) }()
	n.Wake()
	require.Eventually(t, func() bool { return sends.Load() == 1 }, 10*time.Second, time.Millisecond)
	for range 1000 {
		n.Wake()
	}
	close(release)
	<-sent
	<-sent
	require.Never(t, func() bool { return sends.Load() > 2 }, 100*time.Millisecond, 10*time.Millisecond,
		"a burst during one NOTIFY merges into one more")
	cancel()
	require.NoError(t, <-done)
}

func TestNotifierSurvivesAFailedNotify(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	exec := func(context.Context, string, ...any) error {
		if calls.Add(1) == 1 {
			return errors.New("connection refused")
		}
		return nil
	}
	sent := make(chan struct{}, 1)
	n := NewNotifier(exec, "", pgtest.Quiet(), func() { sent <- struct{}{} })
	require.Equal(t, Channel, n.channel)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = n.Run(ctx) }()
	n.Wake()
	require.Eventually(t, func() bool { return calls.Load() == 1 }, 10*time.Second, time.Millisecond)
	n.Wake()
	<-sent
}

// TestListenerWakesAndRelistens runs against the local PostgreSQL: a
// notification wakes, a terminated listening backend is replaced, and the
// listener wakes once after it listens again.
func TestListenerWakesAndRelistens(t *testing.T) {
	t.Parallel()
	env := pgtest.LoadEnv(t)
	channel := fmt.Sprintf("qbt_wake_%d", rand.Int64N(1e12))
	wakes := make(chan struct{}, 100)
	l := NewListener(ListenerOptions{ConnString: env.PostgresURL + "&application_name=" + channel, Channel: channel,
		Wake: func() { wakes <- struct{}{} }, Logger: pgtest.Quiet(), MinBackoff: 10 * time.Millisecond})
	listening := make(chan struct{}, 10)
	l.listening = func() { listening <- struct{}{} }
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
	waitWake(t, wakes)

	_, err = admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", channel)
	require.NoError(t, err)
	<-listening
	waitWake(t, wakes) // the wake after the new LISTEN
	_, err = admin.Exec(ctx, "SELECT pg_notify($1, '')", channel)
	require.NoError(t, err)
	waitWake(t, wakes)

	cancel()
	require.NoError(t, <-done)
}

func waitWake(t *testing.T, wakes <-chan struct{}) {
	t.Helper()
	select {
	case <-wakes:
	case <-time.After(30 * time.Second):
		t.Fatal("no wake-up")
	}
}
