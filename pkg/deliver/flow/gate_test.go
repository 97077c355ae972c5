package flow

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func breakerConfig() Config {
	return Config{Name: "orders", MaxInFlight: 4, InFlightWait: time.Millisecond,
		Breaker:         BreakerConfig{Enabled: true, FailureThreshold: 3, Open: 10 * time.Second, MaxOpen: 25 * time.Second},
		HonorRetryAfter: true, MaxRetryAfter: time.Minute}
}

func publish(t *testing.T, g *Gate, r Result) {
	t.Helper()
	p, d := g.Admit(context.Background())
	require.Nil(t, d)
	p.Done(r)
}

// openBreaker fails as many publishes as breakerConfig's threshold.
func openBreaker(t *testing.T, g *Gate) {
	t.Helper()
	for range 3 {
		publish(t, g, Result{Failed: true, Reason: "status 500"})
	}
}

func requireDeferred(t *testing.T, g *Gate, reason Reason, until time.Time) {
	t.Helper()
	p, d := g.Admit(context.Background())
	require.Nil(t, p)
	require.Equal(t, reason, d.Reason)
	if !until.IsZero() {
		require.Equal(t, until, d.Until)
	}
}

func TestBreakerStates(t *testing.T) {
	t.Parallel()
	failed := Result{Failed: true, Reason: "status 500"}
	cases := []struct {
		name  string
		steps func(t *testing.T, g *Gate, c *clock)
		want  State
	}{
		{"failures below the threshold keep it closed", func(t *testing.T, g *Gate, c *clock) {
			publish(t, g, failed)
			publish(t, g, failed)
		}, Closed},
		{"a success resets the count", func(t *testing.T, g *Gate, c *clock) {
			publish(t, g, failed)
			publish(t, g, failed)
			publish(t, g, Result{})
			publish(t, g, failed)
			publish(t, g, failed)
		}, Closed},
		{"a row refusal is no failure", func(t *testing.T, g *Gate, c *clock) {
			publish(t, g, failed)
			publish(t, g, failed)
			publish(t, g, Result{Reason: "status 400"})
			publish(t, g, failed)
		}, Closed},
		{"the threshold opens it and rows are deferred to its end", func(t *testing.T, g *Gate, c *clock) {
			openBreaker(t, g)
			requireDeferred(t, g, ReasonCircuitOpen, c.Now().Add(10*time.Second))
		}, Open},
		{"after the open period one probe, the rest deferred", func(t *testing.T, g *Gate, c *clock) {
			openBreaker(t, g)
			c.Advance(10 * time.Second)
			p, d := g.Admit(context.Background())
			require.Nil(t, d)
			require.True(t, p.Probe())
			requireDeferred(t, g, ReasonCircuitOpen, time.Time{})
		}, HalfOpen},
		{"a probe success closes it", func(t *testing.T, g *Gate, c *clock) {
			openBreaker(t, g)
			c.Advance(10 * time.Second)
			publish(t, g, Result{})
			publish(t, g, Result{})
		}, Closed},
		{"a failed probe reopens it for twice as long, capped", func(t *testing.T, g *Gate, c *clock) {
			openBreaker(t, g)
			c.Advance(10 * time.Second)
			publish(t, g, failed)
			requireDeferred(t, g, ReasonCircuitOpen, c.Now().Add(20*time.Second))
			c.Advance(20 * time.Second)
			publish(t, g, failed)
			requireDeferred(t, g, ReasonCircuitOpen, c.Now().Add(25*time.Second))
		}, Open},
		{"a skipped probe hands the probe on", func(t *testing.T, g *Gate, c *clock) {
			openBreaker(t, g)
			c.Advance(10 * time.Second)
			publish(t, g, Result{Skipped: true})
			p, d := g.Admit(context.Background())
			require.Nil(t, d)
			require.True(t, p.Probe())
		}, HalfOpen},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClock()
			var changes []State
			g := NewGate(breakerConfig(), c.Now, nil, Hooks{StateChanged: func(s State) { changes = append(changes, s) }})
			tc.steps(t, g, c)
			state, _ := g.State()
			require.Equal(t, tc.want, state)
			if len(changes) > 0 {
				require.Equal(t, tc.want, changes[len(changes)-1], "the hook saw the last change")
			}
		})
	}
}

func TestDisabledBreakerNeverOpens(t *testing.T) {
	t.Parallel()
	cfg := breakerConfig()
	cfg.Breaker.Enabled = false
	g := NewGate(cfg, newClock().Now, nil, Hooks{})
	for range 10 {
		publish(t, g, Result{Failed: true})
	}
	state, _ := g.State()
	require.Equal(t, Closed, state)
}

func TestRetryAfterPausesTheDestination(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		honor  bool
		pause  time.Duration
		paused time.Duration // 0: not paused
	}{
		{"pause as asked", true, 3 * time.Second, 3 * time.Second},
		{"capped by maxRetryAfter", true, time.Hour, time.Minute},
		{"ignored when not honoured", false, 3 * time.Second, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClock()
			cfg := breakerConfig()
			cfg.HonorRetryAfter = tc.honor
			g := NewGate(cfg, c.Now, nil, Hooks{})
			publish(t, g, Result{Failed: true, Pause: tc.pause})
			if tc.paused == 0 {
				publish(t, g, Result{})
				return
			}
			requireDeferred(t, g, ReasonRetryAfter, c.Now().Add(tc.paused))
			c.Advance(tc.paused - time.Millisecond)
			requireDeferred(t, g, ReasonRetryAfter, time.Time{})
			c.Advance(time.Millisecond)
			publish(t, g, Result{})
		})
	}
}

func TestRateLimitSpreadsDeferredRows(t *testing.T) {
	t.Parallel()
	c := newClock()
	cfg := breakerConfig()
	cfg.RatePerSecond = 50 // a bucket of 25, one token per 20 ms
	g := NewGate(cfg, c.Now, nil, Hooks{})
	for range 25 {
		publish(t, g, Result{})
	}
	start := c.Now()
	for i := 1; i <= 3; i++ {
		requireDeferred(t, g, ReasonRate, start.Add(time.Duration(i)*20*time.Millisecond))
	}
	c.Advance(20 * time.Millisecond)
	publish(t, g, Result{})
	requireDeferred(t, g, ReasonRate, time.Time{})
}

// The slots of deferred rows reach at most a second ahead, then start
// again at the next token: a backlog never books rows further out.
func TestRateSlotsStayWithinASecond(t *testing.T) {
	t.Parallel()
	c := newClock()
	cfg := breakerConfig()
	cfg.RatePerSecond = 50
	g := NewGate(cfg, c.Now, nil, Hooks{})
	for range 25 {
		publish(t, g, Result{})
	}
	for range 500 {
		_, d := g.Admit(context.Background())
		require.NotNil(t, d)
		require.False(t, d.Until.After(c.Now().Add(time.Second)), "booked %v ahead", d.Until.Sub(c.Now()))
		require.True(t, d.Until.After(c.Now()))
	}
}

func TestInFlightCap(t *testing.T) {
	t.Parallel()
	c := newClock()
	g := NewGate(breakerConfig(), c.Now, nil, Hooks{})
	publish(t, g, Result{}) // proven: the whole cap is open
	var held []*Permit
	for range 4 {
		p, d := g.Admit(context.Background())
		require.Nil(t, d)
		held = append(held, p)
	}
	requireDeferred(t, g, ReasonInFlight, c.Now().Add(DefaultRetryIn))
	require.Equal(t, 4, g.InFlight())
	held[0].Done(Result{})
	held[0].Done(Result{}) // a second Done frees nothing more
	publish(t, g, Result{})
	require.Equal(t, 3, g.InFlight())
}

// TestConcurrentAdmissions runs many goroutines against one gate: the
// publishes in flight never pass maxInFlight, and a half-open breaker
// lets exactly one probe through however many ask at once.
func TestConcurrentAdmissions(t *testing.T) {
	t.Parallel()
	c := newClock()
	cfg := breakerConfig()
	cfg.InFlightWait = 5 * time.Millisecond
	g := NewGate(cfg, c.Now, nil, Hooks{})
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				p, d := g.Admit(context.Background())
				if d != nil {
					continue
				}
				n := running.Add(1)
				for old := peak.Load(); n > old && !peak.CompareAndSwap(old, n); old = peak.Load() {
				}
				running.Add(-1)
				p.Done(Result{})
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, peak.Load(), int32(cfg.MaxInFlight))
	require.Zero(t, g.InFlight())

	openBreaker(t, g)
	c.Advance(cfg.Breaker.Open)
	var probes atomic.Int32
	permits := make(chan *Permit, 64)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p, d := g.Admit(context.Background()); d == nil {
				probes.Add(1)
				permits <- p
			}
		}()
	}
	wg.Wait()
	require.Equal(t, int32(1), probes.Load(), "one probe")
	(<-permits).Done(Result{})
	state, _ := g.State()
	require.Equal(t, Closed, state)
}

// A publish that started before the breaker opened and fails after it
// changes nothing: the open period stays as it was.
func TestLateFailureWhileOpen(t *testing.T) {
	t.Parallel()
	c := newClock()
	cfg := breakerConfig()
	cfg.Breaker.FailureThreshold = 1
	g := NewGate(cfg, c.Now, nil, Hooks{})
	publish(t, g, Result{})
	late, d := g.Admit(context.Background())
	require.Nil(t, d)
	publish(t, g, Result{Failed: true})
	c.Advance(time.Second)
	late.Done(Result{Failed: true})
	requireDeferred(t, g, ReasonCircuitOpen, c.Now().Add(9*time.Second))
}

// While failures accumulate, no more publishes start than the threshold
// still needs, so a dead destination gets at most failureThreshold
// requests before its breaker opens.
func TestFailuresNarrowTheInFlightCap(t *testing.T) {
	t.Parallel()
	c := newClock()
	g := NewGate(breakerConfig(), c.Now, nil, Hooks{}) // threshold 3, 4 slots
	publish(t, g, Result{Failed: true})
	a, d := g.Admit(context.Background())
	require.Nil(t, d)
	b, d := g.Admit(context.Background())
	require.Nil(t, d)
	requireDeferred(t, g, ReasonInFlight, c.Now().Add(DefaultRetryIn))
	a.Done(Result{})
	b.Done(Result{})
	for range 4 {
		_, d := g.Admit(context.Background())
		require.Nil(t, d, "a success lifts the narrowing")
	}
}

// A destination with no success yet may be down from the outset: no more
// publishes start at once than the threshold, so a receiver that fails
// everything sees failureThreshold requests, not a maxInFlight wave,
// before its breaker opens. The first success opens the whole cap.
func TestAnUnprovenDestinationStartsNoMoreThanTheThreshold(t *testing.T) {
	t.Parallel()
	c := newClock()
	g := NewGate(breakerConfig(), c.Now, nil, Hooks{}) // threshold 3, 4 slots
	var wave []*Permit
	for range 3 {
		p, d := g.Admit(context.Background())
		require.Nil(t, d)
		wave = append(wave, p)
	}
	requireDeferred(t, g, ReasonInFlight, c.Now().Add(DefaultRetryIn))
	for _, p := range wave {
		p.Done(Result{Failed: true, Reason: "status 500"})
	}
	requireDeferred(t, g, ReasonCircuitOpen, time.Time{})

	healthy := NewGate(breakerConfig(), c.Now, nil, Hooks{})
	publish(t, healthy, Result{})
	for range 4 {
		_, d := healthy.Admit(context.Background())
		require.Nil(t, d, "a success opens the whole cap")
	}
}

// A row beyond the threshold of an unproven destination waits, its slot
// held, for the answer of a publish under way instead of being deferred
// for RetryIn: the first success lets it through one round trip later
// (before, at every start, every row beyond the threshold went back to
// pending for a second). Failures that open the breaker end the wait
// with the breaker's deferral, so a dead receiver still sees no more
// than the threshold.
func TestAnUnprovenDestinationsNextRowWaitsForTheFirstAnswer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		answer Result
		want   Reason // "" for a permit
	}{
		{"success", Result{}, ""},
		{"failures", Result{Failed: true, Reason: "status 500"}, ReasonCircuitOpen},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := breakerConfig() // threshold 3, 4 slots
			cfg.InFlightWait = time.Hour
			g := NewGate(cfg, newClock().Now, nil, Hooks{})
			var wave []*Permit
			for range 3 {
				p, d := g.Admit(context.Background())
				require.Nil(t, d)
				wave = append(wave, p)
			}
			type admitted struct {
				p *Permit
				d *Deferral
			}
			next := make(chan admitted, 1)
			go func() {
				p, d := g.Admit(context.Background())
				next <- admitted{p, d}
			}()
			// The row either waits or (as before) is deferred at once.
			require.Eventually(t, func() bool {
				g.mu.Lock()
				defer g.mu.Unlock()
				return g.waiting == 1 || len(next) == 1
			}, time.Minute, time.Millisecond)
			for _, p := range wave {
				p.Done(c.answer)
			}
			got := <-next
			if c.want == "" {
				require.Nil(t, got.d, "the first success lets the waiting row through")
				require.NotNil(t, got.p)
				return
			}
			require.Nil(t, got.p)
			require.Equal(t, c.want, got.d.Reason)
		})
	}
}

// A publish that sent nothing (a blocked connection) defers its row to
// the end of the pause, pauses the destination, frees the slot and counts
// nothing for the breaker: a half-open breaker's probe is given back.
func TestDeferOfAnUnsentPublish(t *testing.T) {
	t.Parallel()
	c := newClock()
	var deferred []Reason
	g := NewGate(breakerConfig(), c.Now, nil, Hooks{Deferred: func(r Reason) { deferred = append(deferred, r) }})
	openBreaker(t, g)
	c.Advance(10 * time.Second)
	p, d := g.Admit(context.Background())
	require.Nil(t, d)
	require.True(t, p.Probe())
	got := p.Defer(5*time.Second, "", c.Now())
	require.Equal(t, Deferral{Reason: ReasonRetryAfter, Until: c.Now().Add(5 * time.Second)}, got)
	require.Equal(t, []Reason{ReasonRetryAfter}, deferred)
	require.Zero(t, g.InFlight())
	state, _ := g.State()
	require.Equal(t, HalfOpen, state, "the breaker counted nothing")
	requireDeferred(t, g, ReasonRetryAfter, c.Now().Add(5*time.Second))
	c.Advance(5 * time.Second)
	p, d = g.Admit(context.Background())
	require.Nil(t, d)
	require.True(t, p.Probe(), "the probe was given back")
	p.Done(Result{})
	state, _ = g.State()
	require.Equal(t, Closed, state)

	var none *Permit
	require.Equal(t, Deferral{Reason: ReasonRetryAfter, Until: c.Now().Add(time.Second)}, none.Defer(time.Second, "", c.Now()))
}

// The deferrals of a pause and of an open breaker say what caused them,
// for the record the workbench shows; a full in-flight cap says nothing.
func TestDeferralDetail(t *testing.T) {
	t.Parallel()
	c := newClock()
	g := NewGate(breakerConfig(), c.Now, nil, Hooks{})
	openBreaker(t, g)
	_, d := g.Admit(context.Background())
	require.Equal(t, ReasonCircuitOpen, d.Reason)
	require.Equal(t, "3 consecutive failed attempts, the last: status 500", d.Detail)

	g = NewGate(breakerConfig(), c.Now, nil, Hooks{})
	publish(t, g, Result{Failed: true, Pause: 3 * time.Second, Reason: "status 429"})
	_, d = g.Admit(context.Background())
	require.Equal(t, Deferral{Reason: ReasonRetryAfter, Until: c.Now().Add(3 * time.Second), Detail: "status 429"}, *d)

	g = NewGate(breakerConfig(), c.Now, nil, Hooks{})
	p, _ := g.Admit(context.Background())
	p.Defer(4*time.Second, "connection blocked: low on memory", c.Now())
	_, d = g.Admit(context.Background())
	require.Equal(t, "connection blocked: low on memory", d.Detail)

	g = NewGate(Config{Name: "orders", MaxInFlight: 1, InFlightWait: time.Millisecond}, c.Now, nil, Hooks{})
	held, _ := g.Admit(context.Background())
	_, d = g.Admit(context.Background())
	require.Equal(t, Deferral{Reason: ReasonInFlight, Until: c.Now().Add(DefaultRetryIn)}, *d)
	held.Done(Result{})
}
