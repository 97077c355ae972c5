package claim_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

// After ctx ends, Run stops claiming but lets the held work finish within
// the shutdown timeout, with a context that the shutdown did not cancel.
func TestRunWaitsForHandlersOnShutdown(t *testing.T) {
	t.Parallel()
	src := newSource(items("s", 3)...)
	release := newGate()
	started := make(chan struct{}, 3)
	var finished, cancelled atomic.Int64
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 3, Concurrency: 1, PollInterval: tick, ShutdownTimeout: time.Hour, Logger: quiet(),
	}, src, func(ctx context.Context, _ item) {
		started <- struct{}{}
		<-release.ch
		if ctx.Err() != nil {
			cancelled.Add(1)
		}
		finished.Add(1)
	})
	cancel, done := running(t, l, release)
	<-started // one runs, two wait in the queue

	cancel()
	claims := src.claimCalls.Load()
	select {
	case <-done:
		t.Fatal("Run returned while a handler still ran")
	default:
	}
	src.add(items("late", 2)...)
	l.Wake()
	release.open()
	waitClosed(t, done, "Run's return after the handlers finished")

	require.Equal(t, int64(3), finished.Load(), "every held item finishes during the drain")
	require.Zero(t, cancelled.Load(), "the shutdown cancelled work inside the drain window")
	require.LessOrEqual(t, src.claimCalls.Load(), claims+1, "the loop kept claiming after shutdown")
	require.Zero(t, l.Held())
	src.mu.Lock()
	defer src.mu.Unlock()
	require.Len(t, src.queue, 2, "an item added after shutdown was claimed")
}

// Handlers still running when the shutdown timeout passes get their ctx
// cancelled (not as a lost lease) and Run returns.
func TestRunCancelsHandlersAfterShutdownTimeout(t *testing.T) {
	t.Parallel()
	src := newSource(items("s", 2)...)
	started := make(chan struct{}, 2)
	causes := make(chan error, 2)
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 2, Concurrency: 2, PollInterval: tick,
		ShutdownTimeout: 20 * time.Millisecond, Logger: quiet(),
	}, src, func(ctx context.Context, _ item) {
		started <- struct{}{}
		<-ctx.Done()
		causes <- context.Cause(ctx)
	})
	cancel, done := running(t, l)
	<-started
	<-started
	cancel()
	waitClosed(t, done, "Run's return after the shutdown timeout")
	for range 2 {
		require.ErrorIs(t, <-causes, context.Canceled)
	}
	require.Zero(t, l.Held())
}

// Leases stay renewed while a shutdown drains held work: a publish that
// outlives the poll loop must not lose its claim.
func TestRenewalContinuesDuringTheDrain(t *testing.T) {
	t.Parallel()
	src := newSource(item{id: "a", token: "t1"})
	started := make(chan struct{})
	release := newGate()
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 1, Concurrency: 1, PollInterval: tick,
		LeaseDuration: lease, ShutdownTimeout: time.Hour, Logger: quiet(),
	}, src, func(ctx context.Context, _ item) {
		close(started)
		<-release.ch
		if ctx.Err() != nil {
			t.Errorf("handler cancelled during the drain: %v", context.Cause(ctx))
		}
	})
	cancel, done := running(t, l, release)
	<-started
	src.stopped.Store(true)
	cancel()
	require.Eventually(t, func() bool { return src.drainRenew.Load() >= 3 }, wait, tick,
		"no renewal after the shutdown began")
	require.True(t, src.renewedLease(claim.Lease{ID: "a", Token: "t1"}))
	release.open()
	waitClosed(t, done, "Run's return")
}

func TestBatchLoopDrainsItsBatchOnShutdown(t *testing.T) {
	t.Parallel()
	src := newSource(items("b", 4)...)
	started := make(chan struct{}, 1)
	release := newGate()
	var got atomic.Int64
	l := claim.NewBatch(claim.Config{
		Name: "test", BatchSize: 4, PollInterval: tick, ShutdownTimeout: time.Hour, Logger: quiet(),
	}, src, func(ctx context.Context, b []item) {
		started <- struct{}{}
		<-release.ch
		if ctx.Err() == nil {
			got.Add(int64(len(b)))
		}
	})
	cancel, done := running(t, l, release)
	<-started
	cancel()
	release.open()
	waitClosed(t, done, "Run's return")
	require.Equal(t, int64(4), got.Load())
}

// An async item that ends during the drain ends the drain and the drain
// renewals at once: Run returns long before its shutdown timeout. With a
// broken idle signal this test hangs for an hour.
func TestDrainEndsWhenTheLastAsyncItemIsDone(t *testing.T) {
	t.Parallel()
	src := newSource(item{id: "a", token: "t1"})
	dones := make(chan func(), 1)
	l := claim.NewAsync(claim.Config{
		Name: "test", BatchSize: 1, Concurrency: 1, PollInterval: forever,
		LeaseDuration: lease, ShutdownTimeout: time.Hour, Logger: quiet(),
	}, src, func(_ context.Context, _ item, done func()) { dones <- done })
	cancel, stopped := running(t, l)
	done := <-dones
	src.stopped.Store(true)
	cancel()
	require.Eventually(t, func() bool { return src.drainRenew.Load() >= 2 }, wait, tick,
		"the held item is renewed through the drain")
	done()
	waitClosed(t, stopped, "Run's return once the last item was done")
	require.Zero(t, l.Held())
}
