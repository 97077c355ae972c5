package flow

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Reason says why a row was deferred: the reason label of
// queuebox_destination_deferred_total.
type Reason string

// The deferral reasons.
const (
	ReasonInFlight    Reason = "in_flight"
	ReasonRate        Reason = "rate"
	ReasonCircuitOpen Reason = "circuit_open"
	ReasonRetryAfter  Reason = "retry_after"
)

// Reasons lists every Reason, for metrics that start at zero.
var Reasons = []Reason{ReasonInFlight, ReasonRate, ReasonCircuitOpen, ReasonRetryAfter}

// Config is the flow control of one destination. Zero values of the
// durations take the defaults named beside them.
type Config struct {
	// Name is the destination name, in logs and metric labels.
	Name string
	// MaxInFlight bounds the publishes under way at once; at least 1.
	MaxInFlight int
	// RatePerSecond bounds the publishes started per second; 0 is no
	// limit.
	RatePerSecond int
	Breaker       BreakerConfig
	// HonorRetryAfter pauses the destination when a publish result asks
	// for it (Result.Pause), for at most MaxRetryAfter.
	HonorRetryAfter bool
	MaxRetryAfter   time.Duration

	// InFlightWait is how long Admit waits for a free slot before it
	// defers the row (DefaultInFlightWait): a destination that answers
	// fast frees one in that time, so its rows wait instead of making a
	// round trip through the table; one that hangs does not, and its rows
	// leave the worker free for other destinations. A row held back by
	// the breaker's narrowed cap waits as long again for an answer.
	InFlightWait time.Duration
	// RetryIn is how far a row is deferred when the destination has no
	// known time to take it: every slot busy, or a probe in flight
	// (DefaultRetryIn).
	RetryIn time.Duration
}

// Defaults of Config.
const (
	DefaultInFlightWait = 20 * time.Millisecond
	DefaultRetryIn      = time.Second
	// DefaultMaxRetryAfter caps a requested pause: one hour.
	DefaultMaxRetryAfter = time.Hour
)

// Deferral is the answer to a row the destination cannot take now.
type Deferral struct {
	Reason Reason
	// Until is when the destination is expected to take the row.
	Until time.Time
	// Detail is what caused a pause or an open breaker (the last failure,
	// the destination's answer or the broker's refusal), redacted as the
	// row's last_error is; empty for in_flight and rate.
	Detail string
}

// Result is what a publish reports on its Permit.
type Result struct {
	// Failed is a failed attempt that counts for the breaker: a timeout,
	// a connection error, a 5xx, a 429, a broker's failure. A refusal
	// that the destination made on purpose (another 4xx) is not one.
	Failed bool
	// Skipped says no publish reached the destination (cancelled at
	// shutdown): the result counts for nothing.
	Skipped bool
	// Pause is how long the destination asked not to be sent to, zero
	// when it did not ask.
	Pause time.Duration
	// Reason describes the failure, for the log line of a state change.
	Reason string
}

// Gate is the flow control of one destination. It is safe for
// concurrent use; its methods never block longer than twice InFlightWait
// (Admit: a wait for a slot, then one for the narrowed cap).
type Gate struct {
	cfg   Config
	now   func() time.Time
	log   *slog.Logger
	hooks Hooks
	slots chan struct{}

	mu          sync.Mutex
	bucket      bucket
	breaker     breaker
	pausedUntil time.Time
	// pausedWhy is the Detail of the pause that ends at pausedUntil.
	pausedWhy string
	// deferred counts the deferrals by reason since the gate was made,
	// for the snapshot of the destinations page.
	deferrals map[Reason]int64
	// reported is closed, and replaced, whenever a publish reports its
	// result while an Admit waits on it: an Admit held back while the
	// breaker narrows the cap (see decideOrWait).
	reported chan struct{}
	// waiting counts the Admits that wait on reported.
	waiting int
}

// Hooks observe a gate; nil fields are skipped. StateChanged runs under
// the gate's lock and the others outside it; all must be quick and must
// not call the gate.
type Hooks struct {
	StateChanged func(State)
	InFlight     func(n int)
	Deferred     func(Reason)
}

// NewGate returns the gate of one destination. now is the clock (nil:
// time.Now) and log receives one line per breaker state change.
func NewGate(cfg Config, now func() time.Time, log *slog.Logger, hooks Hooks) *Gate {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.MaxInFlight = max(1, cfg.MaxInFlight)
	if cfg.InFlightWait <= 0 {
		cfg.InFlightWait = DefaultInFlightWait
	}
	if cfg.RetryIn <= 0 {
		cfg.RetryIn = DefaultRetryIn
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = DefaultMaxRetryAfter
	}
	g := &Gate{cfg: cfg, now: now, log: log.With("destination", cfg.Name), hooks: hooks,
		slots: make(chan struct{}, cfg.MaxInFlight), deferrals: map[Reason]int64{}, reported: make(chan struct{})}
	g.bucket = newBucket(cfg.RatePerSecond)
	g.breaker = newBreaker(cfg.Breaker)
	return g
}

// Admit asks to publish one row now. It returns a Permit, which the
// caller must end with Done once the publish returned, or a Deferral. It
// waits at most InFlightWait for a free slot and, while the breaker
// narrows the cap, as long again for an answer; less when ctx ends.
func (g *Gate) Admit(ctx context.Context) (*Permit, *Deferral) {
	// A paused or open destination answers before any wait for a slot.
	g.mu.Lock()
	d := g.closedDoor(g.now())
	g.mu.Unlock()
	if d != nil {
		return g.deferred(d)
	}
	if !g.acquireSlot(ctx) {
		return g.deferred(&Deferral{Reason: ReasonInFlight, Until: g.now().Add(g.cfg.RetryIn)})
	}
	// Everything again with the slot held: the breaker may have opened
	// during the wait.
	probe, d := g.decideOrWait(ctx)
	if d != nil {
		<-g.slots
		return g.deferred(d)
	}
	g.inFlightChanged()
	return &Permit{g: g, probe: probe}, nil
}

// decideOrWait is decide for a caller that holds a slot. While the
// breaker narrows the cap (failures accumulate, or no publish succeeded
// yet), the caller waits, slot held, up to InFlightWait for the result of
// a publish under way and decides again: the first success opens the
// whole cap, and the row goes out one round trip later instead of being
// deferred for RetryIn (at a replica's start every row beyond the
// threshold was deferred for a second). Failures that open the breaker
// end the wait with the breaker's deferral; a wait that ends with the cap
// still narrowed defers the row as before.
func (g *Gate) decideOrWait(ctx context.Context) (bool, *Deferral) {
	var timer *time.Timer
	for {
		g.mu.Lock()
		probe, d := g.decide(g.now())
		reported := g.reported
		wait := d != nil && d.Reason == ReasonInFlight
		if wait {
			g.waiting++
		}
		g.mu.Unlock()
		if !wait {
			return probe, d
		}
		if timer == nil {
			timer = slotTimers.Get().(*time.Timer)
			timer.Reset(g.cfg.InFlightWait)
			defer func() {
				timer.Stop()
				slotTimers.Put(timer)
			}()
		}
		done := false
		select {
		case <-reported:
		case <-timer.C:
			done = true
		case <-ctx.Done():
			done = true
		}
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
		if done {
			return false, d
		}
	}
}

// closedDoor is the deferral of a paused destination or an open breaker
// whose period has not ended, nil otherwise. The caller holds g.mu.
func (g *Gate) closedDoor(now time.Time) *Deferral {
	if now.Before(g.pausedUntil) {
		return &Deferral{Reason: ReasonRetryAfter, Until: g.pausedUntil, Detail: g.pausedWhy}
	}
	if b := &g.breaker; b.cfg.Enabled && b.state == Open && now.Before(b.openUntil) {
		return &Deferral{Reason: ReasonCircuitOpen, Until: b.openUntil, Detail: b.why}
	}
	return nil
}

// decide takes the decision for a caller that holds a slot: the pause,
// the breaker (and whether the caller carries the probe of a half-open
// one), the narrowing while failures accumulate, the rate. The caller
// holds g.mu.
func (g *Gate) decide(now time.Time) (bool, *Deferral) {
	if d := g.closedDoor(now); d != nil {
		return false, d
	}
	probe, until, ok := g.breaker.admit(now, g.cfg.RetryIn, g.changed)
	if !ok {
		return false, &Deferral{Reason: ReasonCircuitOpen, Until: until}
	}
	// While failures accumulate, no more publishes run than could still
	// be needed to reach the threshold, so a dead destination sees at
	// most failureThreshold requests before the breaker opens.
	if g.breaker.suspect(len(g.slots)) {
		return false, &Deferral{Reason: ReasonInFlight, Until: now.Add(g.cfg.RetryIn)}
	}
	if until, ok := g.bucket.take(now); !ok {
		g.breaker.cancelProbe(probe)
		return false, &Deferral{Reason: ReasonRate, Until: until}
	}
	return probe, nil
}

// slotTimers holds stopped timers for the waits of acquireSlot: the
// workers beyond maxInFlight wait for a slot before almost every publish,
// and a new timer per wait was most of that wait's allocations.
var slotTimers = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}

// acquireSlot takes a slot, waiting up to InFlightWait for one to free;
// false when none did or ctx ended.
func (g *Gate) acquireSlot(ctx context.Context) bool {
	select {
	case g.slots <- struct{}{}:
		return true
	default:
	}
	timer := slotTimers.Get().(*time.Timer)
	timer.Reset(g.cfg.InFlightWait)
	defer func() {
		// Since Go 1.23 a stopped timer delivers no stale value, so the
		// next Get may Reset it and wait on it at once.
		timer.Stop()
		slotTimers.Put(timer)
	}()
	select {
	case g.slots <- struct{}{}:
		return true
	case <-timer.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (g *Gate) deferred(d *Deferral) (*Permit, *Deferral) {
	g.countDeferral(d.Reason)
	if g.hooks.Deferred != nil {
		g.hooks.Deferred(d.Reason)
	}
	return nil, d
}

func (g *Gate) inFlightChanged() {
	if g.hooks.InFlight != nil {
		g.hooks.InFlight(len(g.slots))
	}
}

// changed logs a breaker state change and reports it; the caller holds
// g.mu.
func (g *Gate) changed(s State, reason string) {
	g.log.Warn("circuit breaker "+s.String(), "state", s.String(), "reason", reason)
	if g.hooks.StateChanged != nil {
		g.hooks.StateChanged(s)
	}
}

// State returns the breaker state and, while it is open, when the next
// probe may start.
func (g *Gate) State() (State, time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.breaker.state, g.breaker.openUntil
}

// InFlight returns the publishes under way.
func (g *Gate) InFlight() int { return len(g.slots) }

// Permit is one admitted publish. Done must be called once.
type Permit struct {
	g     *Gate
	probe bool
	once  sync.Once
}

// Probe reports whether this publish is the one probe of a half-open
// breaker.
func (p *Permit) Probe() bool { return p.probe }

// Defer ends a permit whose publish sent nothing because the destination
// cannot take messages now (see Unsent): the slot is freed, the
// destination pauses for pause (when HonorRetryAfter, capped by
// MaxRetryAfter), the breaker counts nothing (a probe is given back) and
// the row is deferred with reason retry_after until the pause ends. why
// is the refusal's redacted text, the Detail of the deferral. On a nil
// Permit (no gate) it only returns the deferral.
func (p *Permit) Defer(pause time.Duration, why string, now time.Time) Deferral {
	d := Deferral{Reason: ReasonRetryAfter, Until: now.Add(pause), Detail: why}
	if p == nil {
		return d
	}
	p.Done(Result{Skipped: true, Pause: pause, Reason: why})
	p.g.countDeferral(d.Reason)
	if p.g.hooks.Deferred != nil {
		p.g.hooks.Deferred(d.Reason)
	}
	return d
}

// Done frees the slot and reports the publish's result to the breaker
// and the pause. Calls after the first do nothing, and so does a call on
// a nil Permit (a destination without a gate).
func (p *Permit) Done(r Result) {
	if p == nil {
		return
	}
	p.once.Do(func() {
		g := p.g
		g.mu.Lock()
		now := g.now()
		if r.Pause > 0 && g.cfg.HonorRetryAfter {
			if until := now.Add(min(r.Pause, g.cfg.MaxRetryAfter)); until.After(g.pausedUntil) {
				g.pausedUntil, g.pausedWhy = until, r.Reason
			}
		}
		g.breaker.report(now, p.probe, r, g.changed)
		// The slot is freed after the result counts, so an Admit that
		// sees the slot free also sees the failure (see suspect); the
		// Admits waiting on the narrowed cap decide again with both. A
		// waiter counts itself and takes the channel under g.mu, so with
		// none counted no one holds it, and a publish pays no channel.
		<-g.slots
		if g.waiting > 0 {
			close(g.reported)
			g.reported = make(chan struct{})
		}
		g.mu.Unlock()
		g.inFlightChanged()
	})
}
