package source_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/source"
)

func TestReconnectBacksOffAndResetsAfterASessionThatConsumed(t *testing.T) {
	t.Parallel()
	lost := errors.New("connection lost")
	fatal := errors.New("queue missing")
	consumed := []bool{false, false, true, false}
	var waits []time.Duration
	sessions := 0
	err := source.Reconnect{
		Session: func(context.Context) (bool, error) {
			sessions++
			if sessions > len(consumed) {
				return false, fatal
			}
			return consumed[sessions-1], lost
		},
		Failed: func(err error, retryIn time.Duration) error {
			waits = append(waits, retryIn)
			if errors.Is(err, fatal) {
				return err
			}
			return nil
		},
		MinBackoff: time.Millisecond, MaxBackoff: 3 * time.Millisecond,
	}.Run(t.Context())
	require.ErrorIs(t, err, fatal)
	require.Equal(t, []time.Duration{time.Millisecond, 2 * time.Millisecond, time.Millisecond,
		2 * time.Millisecond, 3 * time.Millisecond}, waits)
}

func TestReconnectEndsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	err := source.Reconnect{
		Session: func(ctx context.Context) (bool, error) {
			cancel()
			<-ctx.Done()
			return true, ctx.Err()
		},
		Failed: func(error, time.Duration) error { t.Fatal("a shutdown is no failure"); return nil },
	}.Run(ctx)
	require.NoError(t, err)
}

func TestWaitEndsEarlyOnWake(t *testing.T) {
	t.Parallel()
	wake := make(chan struct{}, 1)
	wake <- struct{}{}
	require.True(t, source.Wait(t.Context(), time.Hour, wake), "a wake ends the wait; the context is still live")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.False(t, source.Wait(ctx, time.Hour, wake))
	require.False(t, source.Wait(ctx, time.Hour, nil))
	require.True(t, source.Wait(t.Context(), time.Millisecond, nil))
}
