package claim_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

// peak tracks the largest value a counter reached.
type peak struct {
	cur, max atomic.Int64
}

func (p *peak) enter() {
	n := p.cur.Add(1)
	for {
		m := p.max.Load()
		if n <= m || p.max.CompareAndSwap(m, n) {
			return
		}
	}
}

func (p *peak) leave() { p.cur.Add(-1) }

// counts records how often each lease was handled.
type counts struct {
	mu sync.Mutex
	m  map[claim.Lease]int
}

func newCounts() *counts { return &counts{m: map[claim.Lease]int{}} }

func (c *counts) add(l claim.Lease) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[l]++
}

func (c *counts) get(l claim.Lease) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[l]
}

func (c *counts) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.m {
		n += v
	}
	return n
}

func (c *counts) snapshot() map[claim.Lease]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[claim.Lease]int, len(c.m))
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

func TestLoopBoundsConcurrency(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name               string
		concurrency, batch int
		want               int // the most handlers that can run at once
	}{
		{"one worker", 1, 5, 1},
		{"three workers", 3, 10, 3},
		{"eight workers", 8, 8, 8},
		{"batch below concurrency", 8, 3, 6}, // two batches held
		{"zero falls back to one", 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const n = 40
			src := newSource(items("x", n)...)
			var inflight peak
			var heldOver atomic.Int64
			handled := newCounts()
			gate := newGate()
			var l *claim.Loop[item]
			l = claim.New(claim.Config{
				Name: "test", BatchSize: tc.batch, Concurrency: tc.concurrency,
				PollInterval: tick, Logger: quiet(),
			}, src, func(_ context.Context, it item) {
				inflight.enter()
				defer inflight.leave()
				// One batch in work and the next claimed ahead.
				if l.Held() > 2*max(tc.batch, 1) {
					heldOver.Add(1)
				}
				<-gate.ch
				handled.add(it.Lease())
			})
			running(t, l, gate)

			// Fill every slot, then let the rest run freely.
			require.Eventually(t, func() bool { return inflight.cur.Load() == int64(tc.want) }, wait, tick)
			gate.open()
			require.Eventually(t, func() bool { return handled.total() == n }, wait, tick)

			require.Equal(t, int64(tc.want), inflight.max.Load(), "most handlers in flight at once")
			require.Zero(t, heldOver.Load(), "the loop held more than two batches")
			for _, it := range items("x", n) {
				require.Equal(t, 1, handled.get(it.Lease()), "item %s", it.id)
			}
			src.mu.Lock()
			defer src.mu.Unlock()
			for _, c := range src.claims {
				require.LessOrEqual(t, len(c), max(tc.batch, 1), "a claim asked for more than BatchSize")
			}
		})
	}
}

// Producers add items while the loop runs and wake it after each add. The
// poll interval is an hour, so every claim comes from a wake: a lost wake
// would leave items unclaimed and fail the test.
func TestLoopHandlesEveryItemOnceWithConcurrentProducers(t *testing.T) {
	t.Parallel()
	const producers, perProducer = 4, 60
	src := newSource()
	handled := newCounts()
	var inflight peak
	var claimedRows atomic.Int64
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 7, Concurrency: 3, PollInterval: forever, Logger: quiet(),
		Hooks: claim.Hooks{Claimed: func(n int) { claimedRows.Add(int64(n)) }},
	}, src, func(_ context.Context, it item) {
		inflight.enter()
		defer inflight.leave()
		handled.add(it.Lease())
	})
	running(t, l)

	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			all := items(fmt.Sprintf("p%d", p), perProducer)
			for i := 0; i < len(all); i += 5 {
				src.add(all[i:min(i+5, len(all))]...)
				l.Wake()
			}
		})
	}
	wg.Wait()

	require.Eventually(t, func() bool { return handled.total() == producers*perProducer }, wait, tick)
	require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)
	for k, v := range handled.snapshot() {
		require.Equal(t, 1, v, "lease %v handled %d times", k, v)
	}
	require.Len(t, handled.snapshot(), producers*perProducer)
	require.LessOrEqual(t, inflight.max.Load(), int64(3))
	require.Equal(t, int64(producers*perProducer), claimedRows.Load(), "Hooks.Claimed sums the claimed rows")
}

func TestLoopWakeClaimsWithoutWaitingForThePoll(t *testing.T) {
	t.Parallel()
	src := newSource()
	handled := make(chan claim.Lease, 1)
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 4, Concurrency: 2, PollInterval: forever, Logger: quiet(),
	}, src, func(_ context.Context, it item) { handled <- it.Lease() })
	running(t, l)

	// The first claim runs at start and finds nothing; the next tick is an
	// hour away.
	require.Eventually(t, func() bool { return src.claimCalls.Load() == 1 }, wait, tick)
	src.add(item{id: "late", token: "t1"})
	require.Equal(t, int64(1), src.claimCalls.Load(), "no claim before the wake")

	l.Wake()
	select {
	case got := <-handled:
		require.Equal(t, claim.Lease{ID: "late", Token: "t1"}, got)
	case <-waitTimeout():
		t.Fatal("the wake did not lead to a claim")
	}
	require.GreaterOrEqual(t, src.claimCalls.Load(), int64(2))
}

func TestLoopWakeNeverBlocks(t *testing.T) {
	t.Parallel()
	// No Run: nothing reads the wake channel, so only a merging Wake returns.
	l := claim.New(claim.Config{Logger: quiet()}, newSource(), func(context.Context, item) {})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			l.Wake()
		}
	}()
	waitClosed(t, done, "100 wakes without a reader")
}

func TestLoopKeepsGoingAfterClaimErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("database down")
	src := newSource(items("x", 5)...)
	src.claimErrs = []error{boom, boom, boom}
	handled := newCounts()

	var mu sync.Mutex
	var failures []string
	var errs []error
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 10, Concurrency: 2, PollInterval: tick, Logger: quiet(),
		Hooks: claim.Hooks{ClaimFailed: func(op string, err error) {
			mu.Lock()
			defer mu.Unlock()
			failures = append(failures, op)
			errs = append(errs, err)
		}},
	}, src, func(_ context.Context, it item) { handled.add(it.Lease()) })
	running(t, l)

	require.Eventually(t, func() bool { return handled.total() == 5 }, wait, tick)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"claim", "claim", "claim"}, failures)
	for _, err := range errs {
		require.ErrorIs(t, err, boom)
	}
}

func TestBatchLoopHandsWholeBatchesOneAtATime(t *testing.T) {
	t.Parallel()
	const n = 23
	src := newSource(items("b", n)...)
	var inflight peak
	var mu sync.Mutex
	var batches [][]item
	l := claim.NewBatch(claim.Config{
		// Concurrency is ignored by a batch loop.
		Name: "test", BatchSize: 5, Concurrency: 4, PollInterval: tick, Logger: quiet(),
	}, src, func(_ context.Context, b []item) {
		inflight.enter()
		defer inflight.leave()
		mu.Lock()
		defer mu.Unlock()
		batches = append(batches, append([]item(nil), b...))
	})
	running(t, l)

	total := func() int {
		mu.Lock()
		defer mu.Unlock()
		s := 0
		for _, b := range batches {
			s += len(b)
		}
		return s
	}
	require.Eventually(t, func() bool { return total() == n }, wait, tick)
	require.Equal(t, int64(1), inflight.max.Load(), "batches ran concurrently")

	mu.Lock()
	defer mu.Unlock()
	src.mu.Lock()
	defer src.mu.Unlock()
	// Each handler call got exactly one claim, whole and in claim order.
	require.Equal(t, src.claims, batches)
	var flat []item
	for _, b := range batches {
		require.NotEmpty(t, b)
		require.LessOrEqual(t, len(b), 5)
		flat = append(flat, b...)
	}
	require.Equal(t, items("b", n), flat)
}
