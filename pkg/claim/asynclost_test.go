package claim_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// An async item whose handler handed its outcome to the writer is missed
// by a renewal that runs after the outcome committed (the row is no
// longer processing) but before done is called. That is no lost claim:
// the fenced write knows whether the row was still ours. The loop must not
// report it.
func TestAsyncRenewalMissAfterTheHandOffIsNotReported(t *testing.T) {
	t.Parallel()
	// b stays held, so renewals go on after a is missed: the second
	// renewal after the miss proves the first was fully handled.
	src := newSource(item{id: "a", token: "t1"}, item{id: "b", token: "t1"})
	handedOff := make(chan func(), 2)
	var lost lostLog
	l := claim.NewAsync(claim.Config{
		Name: "test", BatchSize: 2, Concurrency: 2, PollInterval: forever, LeaseDuration: lease, Logger: quiet(),
		Hooks: claim.Hooks{Lost: lost.hook},
	}, src, func(_ context.Context, _ item, done func()) { handedOff <- done })
	running(t, l)

	dones := []func(){<-handedOff, <-handedOff}
	// The outcome write of a committed: renewals no longer find the row.
	src.setDrop("a", true)
	after := src.renewCalls.Load()
	require.Eventually(t, func() bool { return src.renewCalls.Load() >= after+2 }, wait, tick)
	for _, done := range dones {
		done()
	}

	require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)
	require.Empty(t, lost.get(), "a renewal miss after the hand-off was reported as a lost claim")
}

// A renewal miss while an async handler still works cancels it with
// ErrLeaseLost; the handler, not the loop, reports the loss, so that one
// loss is counted once whether the handler stops or its fenced write finds
// it. An item that never reached its handler is reported by the loop.
func TestAsyncLossIsReportedByTheLoopOnlyForItemsNeverHandled(t *testing.T) {
	t.Parallel()
	src := newSource(item{id: "running", token: "t1"}, item{id: "queued", token: "t1"})
	causes := make(chan error, 1)
	handled := newCounts()
	var lost lostLog
	l := claim.NewAsync(claim.Config{
		Name: "test", BatchSize: 2, Concurrency: 1, PollInterval: forever, LeaseDuration: lease, Logger: quiet(),
		Hooks: claim.Hooks{Lost: lost.hook},
	}, src, func(ctx context.Context, it item, done func()) {
		handled.add(it.Lease())
		<-ctx.Done()
		causes <- context.Cause(ctx)
		done()
	})
	running(t, l)

	require.Eventually(t, func() bool { return handled.total() == 1 }, wait, tick)
	src.setDrop("queued", true)
	require.Eventually(t, func() bool { return len(lost.get()) == 1 }, wait, tick)
	src.setDrop("running", true)
	select {
	case cause := <-causes:
		require.ErrorIs(t, cause, queuebox.ErrLeaseLost)
	case <-waitTimeout():
		t.Fatal("the lost lease did not cancel the handler")
	}
	require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)
	require.Equal(t, 0, handled.get(claim.Lease{ID: "queued", Token: "t1"}), "a lost queued item was handled")
	require.Equal(t, []claim.Lease{{ID: "queued", Token: "t1"}}, lost.get())
}
