package claim_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// lease is the lease duration of the renewal tests: a renewal every 10 ms
// and a reclaim step every 10 ms.
const lease = 30 * time.Millisecond

// lostLog records Hooks.Lost calls.
type lostLog struct {
	mu     sync.Mutex
	leases []claim.Lease
}

func (l *lostLog) hook(lease claim.Lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leases = append(l.leases, lease)
}

func (l *lostLog) get() []claim.Lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.leases)
}

func TestRenewalCarriesEveryHeldLeaseInOneCall(t *testing.T) {
	t.Parallel()
	src := newSource(items("r", 3)...)
	release := newGate()
	var started atomic.Int64
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 3, Concurrency: 3, PollInterval: tick, LeaseDuration: lease, Logger: quiet(),
	}, src, func(ctx context.Context, _ item) {
		started.Add(1)
		select {
		case <-release.ch:
		case <-ctx.Done():
			t.Errorf("handler cancelled: %v", context.Cause(ctx))
		}
	})
	running(t, l, release)
	require.Eventually(t, func() bool { return started.Load() == 3 }, wait, tick)

	want := []claim.Lease{{ID: "r-000", Token: "t1"}, {ID: "r-001", Token: "t1"}, {ID: "r-002", Token: "t1"}}
	require.Eventually(t, func() bool {
		src.mu.Lock()
		defer src.mu.Unlock()
		for _, call := range src.renewed {
			got := slices.Clone(call)
			slices.SortFunc(got, func(a, b claim.Lease) int { return cmp.Compare(a.ID, b.ID) })
			if slices.Equal(got, want) {
				return true
			}
		}
		return false
	}, wait, tick, "no renewal carried all three leases")
	release.open()
	require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)
}

// A renewal that drops one lease cancels that handler only, with the
// cause ErrLeaseLost, and reports the loss once however long the handler
// takes to stop and however many renewals follow.
func TestLostLeaseCancelsItsHandlerAndIsReportedOnce(t *testing.T) {
	t.Parallel()
	src := newSource(item{id: "a", token: "t1"}, item{id: "b", token: "t1"})
	release := newGate()
	causes := make(chan error, 1)
	bCtx := make(chan context.Context, 1)
	var lost lostLog
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 2, Concurrency: 2, PollInterval: tick, LeaseDuration: lease, Logger: quiet(),
		Hooks: claim.Hooks{Lost: lost.hook},
	}, src, func(ctx context.Context, it item) {
		if it.id == "b" {
			bCtx <- ctx
			<-release.ch
			return
		}
		<-ctx.Done()
		causes <- context.Cause(ctx)
		<-release.ch // a slow handler: it stops late
	})
	running(t, l, release)

	ctxB := <-bCtx
	src.setDrop("a", true)
	select {
	case cause := <-causes:
		require.ErrorIs(t, cause, queuebox.ErrLeaseLost)
	case <-waitTimeout():
		t.Fatal("the lost lease did not cancel the handler")
	}

	// Several more renewals run while handler a still runs.
	after := src.renewCalls.Load()
	require.Eventually(t, func() bool { return src.renewCalls.Load() >= after+4 }, wait, tick)

	require.Equal(t, []claim.Lease{{ID: "a", Token: "t1"}}, lost.get())
	require.NoError(t, ctxB.Err(), "the kept lease's handler was cancelled")
	release.open()
	require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)
	require.Equal(t, []claim.Lease{{ID: "a", Token: "t1"}}, lost.get())
}

// A queued item whose lease was lost before a worker took it is not
// handled: its new owner handles it.
func TestLostLeaseOfAQueuedItemSkipsItsHandler(t *testing.T) {
	t.Parallel()
	src := newSource(item{id: "first", token: "t1"}, item{id: "queued", token: "t1"})
	release := newGate()
	handled := newCounts()
	var lost lostLog
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 2, Concurrency: 1, PollInterval: tick, LeaseDuration: lease, Logger: quiet(),
		Hooks: claim.Hooks{Lost: lost.hook},
	}, src, func(ctx context.Context, it item) {
		handled.add(it.Lease())
		if it.id == "first" {
			<-release.ch
		}
	})
	running(t, l, release)

	require.Eventually(t, func() bool { return handled.total() == 1 }, wait, tick)
	src.setDrop("queued", true)
	require.Eventually(t, func() bool { return len(lost.get()) > 0 }, wait, tick)
	after := src.renewCalls.Load()
	require.Eventually(t, func() bool { return src.renewCalls.Load() >= after+3 }, wait, tick)
	release.open()

	require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)
	require.Equal(t, 0, handled.get(claim.Lease{ID: "queued", Token: "t1"}), "a lost queued item was handled")
	require.Equal(t, []claim.Lease{{ID: "queued", Token: "t1"}}, lost.get())
}

// The same row comes back under a new token (it was reclaimed after the
// old lease was lost) while the old handler still runs. The new claim is
// handled and renewed; the old handler's end does not drop it.
func TestReclaimedRowIsHandledUnderItsNewToken(t *testing.T) {
	t.Parallel()
	for _, concurrency := range []int{1, 2} {
		t.Run(fmt.Sprintf("concurrency %d", concurrency), func(t *testing.T) {
			t.Parallel()
			src := newSource(item{id: "a", token: "t1"})
			oldStopped := make(chan struct{})
			releaseOld := newGate()
			releaseNew := newGate()
			newStarted := make(chan context.Context, 1)
			var lost lostLog
			l := claim.New(claim.Config{
				Name: "test", BatchSize: 2, Concurrency: concurrency, PollInterval: forever,
				LeaseDuration: lease, Logger: quiet(), Hooks: claim.Hooks{Lost: lost.hook},
			}, src, func(ctx context.Context, it item) {
				if it.token == "t1" {
					<-ctx.Done()
					close(oldStopped)
					<-releaseOld.ch
					return
				}
				newStarted <- ctx
				<-releaseNew.ch
			})
			running(t, l, releaseOld, releaseNew)

			require.Eventually(t, func() bool { return src.renewedLease(claim.Lease{ID: "a", Token: "t1"}) }, wait, tick)
			src.setDrop("a", true)
			waitClosed(t, oldStopped, "cancel of the lost lease")

			// The reclaim step returned the row and this loop claims it again.
			src.setDrop("a", false)
			src.add(item{id: "a", token: "t2"})
			l.Wake()
			require.Eventually(t, func() bool {
				src.mu.Lock()
				defer src.mu.Unlock()
				return len(src.claims) == 2
			}, wait, tick)
			releaseOld.open()

			var ctx context.Context
			select {
			case ctx = <-newStarted:
			case <-waitTimeout():
				t.Fatal("the reclaimed row was never handled")
			}
			// The old handler is done; the new lease stays held and renewed.
			mark := src.renewedLen()
			require.Eventually(t, func() bool {
				src.mu.Lock()
				defer src.mu.Unlock()
				n := 0
				for _, call := range src.renewed[mark:] {
					if slices.Contains(call, claim.Lease{ID: "a", Token: "t2"}) {
						n++
					}
				}
				return n >= 3
			}, wait, tick, "the new lease is not renewed")
			require.Equal(t, 1, l.Held())
			require.NoError(t, ctx.Err())
			require.Equal(t, []claim.Lease{{ID: "a", Token: "t1"}}, lost.get())
			releaseNew.open()
			require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)
		})
	}
}

// A new claim of a row proves the old token can write nothing more, even
// when no renewal noticed the loss yet (here there is no renewal at all).
func TestReclaimOfAHeldRowCancelsTheOldHandler(t *testing.T) {
	t.Parallel()
	src := newSource(item{id: "a", token: "t1"})
	oldStarted := make(chan struct{})
	causes := make(chan error, 1)
	newHandled := make(chan struct{})
	var lost lostLog
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 2, Concurrency: 2, PollInterval: forever, Logger: quiet(),
		Hooks: claim.Hooks{Lost: lost.hook},
	}, src, func(ctx context.Context, it item) {
		if it.token == "t1" {
			close(oldStarted)
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return
		}
		close(newHandled)
	})
	running(t, l)
	waitClosed(t, oldStarted, "start of the first handler")

	src.add(item{id: "a", token: "t2"})
	l.Wake()
	select {
	case cause := <-causes:
		require.ErrorIs(t, cause, queuebox.ErrLeaseLost)
	case <-waitTimeout():
		t.Fatal("the old handler was not cancelled")
	}
	waitClosed(t, newHandled, "the new claim's handler")
	require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)
	require.Equal(t, []claim.Lease{{ID: "a", Token: "t1"}}, lost.get())
}

func TestRenewalErrorIsReported(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	src := newSource(item{id: "a", token: "t1"})
	src.renewFailed = boom
	release := newGate()
	failures := make(chan error, 100)
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 1, Concurrency: 1, PollInterval: tick, LeaseDuration: lease, Logger: quiet(),
		Hooks: claim.Hooks{ClaimFailed: func(op string, err error) {
			if op == "renew" {
				select {
				case failures <- err:
				default:
				}
			}
		}},
	}, src, func(context.Context, item) { <-release.ch })
	running(t, l, release)
	select {
	case err := <-failures:
		require.ErrorIs(t, err, boom)
	case <-waitTimeout():
		t.Fatal("the failed renewal was not reported")
	}
	release.open()
}

// A batch handler's fenced writes find a lost lease (the relay counts it
// there), so a renewal that misses a row of a batch in work neither
// cancels the batch nor reports the loss a second time.
func TestBatchLoopLeavesALostLeaseToTheHandler(t *testing.T) {
	t.Parallel()
	src := newSource(item{id: "a", token: "t1"}, item{id: "b", token: "t1"})
	release := newGate()
	started := make(chan context.Context, 1)
	var lost lostLog
	l := claim.NewBatch(claim.Config{
		Name: "test", BatchSize: 2, PollInterval: tick, LeaseDuration: lease, Logger: quiet(),
		Hooks: claim.Hooks{Lost: lost.hook},
	}, src, func(ctx context.Context, b []item) {
		started <- ctx
		<-release.ch
	})
	running(t, l, release)
	ctx := <-started
	src.setDrop("b", true)
	after := src.renewCalls.Load()
	require.Eventually(t, func() bool { return src.renewCalls.Load() >= after+3 }, wait, tick)

	require.NoError(t, ctx.Err(), "a lost lease cancelled the batch")
	require.Empty(t, lost.get(), "the handler's write reports the loss, not the renewal")
	release.open()
}

// The reclaim step runs on its own timer, reports what it returned and
// wakes the claimer: the poll interval is an hour, so only that wake can
// claim the returned rows.
func TestReclaimReportsAndWakesTheClaimer(t *testing.T) {
	t.Parallel()
	src := newSource()
	src.reclaims = []int64{3}
	src.requeue = items("reclaimed", 3)
	handled := newCounts()
	reclaimed := make(chan int64, 10)
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 5, Concurrency: 2, PollInterval: forever, LeaseDuration: lease, Logger: quiet(),
		Hooks: claim.Hooks{Reclaimed: func(n int64) { reclaimed <- n }},
	}, src, func(_ context.Context, it item) { handled.add(it.Lease()) })
	running(t, l)

	select {
	case n := <-reclaimed:
		require.Equal(t, int64(3), n)
	case <-waitTimeout():
		t.Fatal("Hooks.Reclaimed was not called")
	}
	require.Eventually(t, func() bool { return handled.total() == 3 }, wait, tick)
	// The step keeps running on its timer.
	after := src.reclaimCalls.Load()
	require.Eventually(t, func() bool { return src.reclaimCalls.Load() >= after+2 }, wait, tick)
}

// TestFailedRenewalsPastTheLeaseCancelTheWork: renewals that fail for a
// whole lease duration mean the lease expired; the work is cancelled as a
// lost lease and reported once.
func TestFailedRenewalsPastTheLeaseCancelTheWork(t *testing.T) {
	t.Parallel()
	src := newSource(item{id: "a", token: "t1"})
	src.renewFailed = errors.New("connection reset")
	var lost lostLog
	cancelled := make(chan error, 1)
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 1, Concurrency: 1, PollInterval: tick, LeaseDuration: lease, Logger: quiet(),
		Hooks: claim.Hooks{Lost: lost.hook},
	}, src, func(ctx context.Context, _ item) {
		<-ctx.Done()
		cancelled <- context.Cause(ctx)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = l.Run(ctx) }()
	select {
	case cause := <-cancelled:
		require.ErrorIs(t, cause, queuebox.ErrLeaseLost)
	case <-waitTimeout():
		t.Fatal("the work outlived its lease")
	}
	// The loss is reported after the work was cancelled, not before.
	require.Eventually(t, func() bool { return len(lost.get()) > 0 }, wait, tick)
	require.Equal(t, []claim.Lease{{ID: "a", Token: "t1"}}, lost.get())
}
