package claim_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

// dueSource is a fakeSource that implements claim.NextDuer: each NextDue
// answers with the next entry of dues, and once they run out reports no
// waiting row. An entry's items join the queue as it is answered, as a
// retry that falls due after the delay it reports.
type dueSource struct {
	*fakeSource
	mu       sync.Mutex
	dues     []due
	asked    int
	failNext error
	sinces   []time.Duration
}

type due struct {
	delay time.Duration
	items []item
}

var _ claim.NextDuer = (*dueSource)(nil)

func (s *dueSource) NextDue(_ context.Context, since time.Duration) (time.Duration, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	s.sinces = append(s.sinces, since)
	if err := s.failNext; err != nil {
		s.failNext = nil
		return 0, false, err
	}
	if len(s.dues) == 0 {
		return 0, false, nil
	}
	d := s.dues[0]
	s.dues = s.dues[1:]
	s.add(d.items...)
	return d.delay, true, nil
}

// With a poll interval of an hour, no wake and no reclaim step, only the
// next-due delay can bring the second and third claims: the handler holds
// its items (done comes only at shutdown), so no finished item wakes the
// loop either.
func TestLoopClaimsWhenTheNextRowFallsDue(t *testing.T) {
	t.Parallel()
	src := &dueSource{fakeSource: newSource(), dues: []due{
		{delay: 20 * time.Millisecond, items: items("retry", 1)},
		{delay: 0, items: items("now", 1)}, // due at once: the floor applies
	}}
	handled := newCounts()
	l := claim.NewAsync(claim.Config{Name: "due", BatchSize: 4, PollInterval: forever, ShutdownTimeout: tick,
		Logger: quiet()}, src,
		func(ctx context.Context, it item, done func()) {
			handled.add(it.Lease())
			go func() { <-ctx.Done(); done() }()
		})
	running(t, l)

	require.Eventually(t, func() bool { return handled.total() == 2 }, wait, tick)
	require.Equal(t, 1, handled.get(item{id: "retry-000", token: "t1"}.Lease()))
	require.Equal(t, 1, handled.get(item{id: "now-000", token: "t1"}.Lease()))
	require.Equal(t, int64(3), src.claimCalls.Load(), "the start, then one claim per due row")
}

// A failed NextDue falls back to the poll interval and does not stop the
// loop: a later wake still claims, and asks again.
func TestLoopOutlivesAFailedNextDue(t *testing.T) {
	t.Parallel()
	src := &dueSource{fakeSource: newSource(), failNext: context.DeadlineExceeded}
	handled := newCounts()
	l := claim.New(claim.Config{Name: "due", BatchSize: 4, PollInterval: forever, Logger: quiet()}, src,
		func(_ context.Context, it item) { handled.add(it.Lease()) })
	running(t, l)

	require.Eventually(t, func() bool {
		src.mu.Lock()
		defer src.mu.Unlock()
		return src.asked == 1
	}, wait, tick)
	src.mu.Lock()
	src.dues = []due{{delay: 10 * time.Millisecond, items: items("retry", 1)}}
	src.mu.Unlock()
	src.add(items("woken", 1)...)
	l.Wake()
	require.Eventually(t, func() bool { return handled.total() == 2 }, wait, tick)
}

// slowDueSource answers NextDue only when its context ends, as a store
// would on a loaded database whose answer comes after the poll tick.
type slowDueSource struct {
	*fakeSource
	asked chan struct{}
}

func (s *slowDueSource) NextDue(ctx context.Context, _ time.Duration) (time.Duration, bool, error) {
	select {
	case s.asked <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return 0, false, ctx.Err()
}

// An answer slower than the poll interval is no answer, not a failure:
// the tick comes first anyway, and nothing is logged at error level.
func TestASlowNextDueIsNoError(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	src := &slowDueSource{fakeSource: newSource(), asked: make(chan struct{}, 1)}
	l := claim.New(claim.Config{Name: "due", BatchSize: 4, PollInterval: time.Second,
		Logger: slog.New(slog.NewTextHandler(&out, nil))}, src, func(context.Context, item) {})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	<-src.asked
	require.Eventually(t, func() bool { return src.claimCalls.Load() >= 2 }, 20*time.Second, time.Millisecond,
		"the poll tick claims again after the unanswered question")
	cancel()
	require.NoError(t, <-done)
	require.NotContains(t, out.String(), "next due failed")
}

// heldClaimSource is a dueSource whose claims wait until release closes,
// as a claim on a busy database does.
type heldClaimSource struct {
	*dueSource
	entered chan struct{}
	release chan struct{}
}

func (s *heldClaimSource) Claim(ctx context.Context, limit int) ([]item, error) {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	<-s.release
	return s.dueSource.Claim(ctx, limit)
}

// The loop tells NextDue how long ago its claim started, so that a row
// that fell due while a slow claim ran is still reported (the claim could
// not see it) instead of waiting for the next poll tick. Before the fix
// the question had no window: a retry that fell due during the claim
// waited a whole poll interval (with capture on, the reconciliation
// interval).
func TestNextDueIsAskedForTheWholeClaimWindow(t *testing.T) {
	t.Parallel()
	src := &heldClaimSource{dueSource: &dueSource{fakeSource: newSource()},
		entered: make(chan struct{}, 1), release: make(chan struct{})}
	l := claim.New(claim.Config{Name: "due", BatchSize: 4, PollInterval: forever, Logger: quiet()}, src,
		func(context.Context, item) {})
	running(t, l)

	<-src.entered
	held := time.Now()
	// Hold the claim until the machine's clock has visibly moved.
	require.Eventually(t, func() bool { return time.Since(held) >= 20*time.Millisecond }, wait, time.Millisecond)
	heldFor := time.Since(held)
	close(src.release)
	require.Eventually(t, func() bool {
		src.mu.Lock()
		defer src.mu.Unlock()
		return src.asked == 1
	}, wait, tick)
	src.mu.Lock()
	defer src.mu.Unlock()
	require.GreaterOrEqual(t, src.sinces[0], heldFor, "the window starts before the claim, not after it")
}
