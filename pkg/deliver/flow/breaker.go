package flow

import (
	"fmt"
	"time"
)

// State is the state of a circuit breaker; its value is the value of
// queuebox_destination_circuit_state.
type State int

// The breaker states.
const (
	Closed   State = 0
	HalfOpen State = 1
	Open     State = 2
)

func (s State) String() string {
	switch s {
	case HalfOpen:
		return "half-open"
	case Open:
		return "open"
	}
	return "closed"
}

// BreakerConfig is flowControl.circuitBreaker.
type BreakerConfig struct {
	Enabled bool
	// FailureThreshold is the consecutive failed attempts that open the
	// breaker; at least 1.
	FailureThreshold int
	// Open is the first open period (DefaultOpen); each failed probe
	// doubles it, up to MaxOpen (DefaultMaxOpen).
	Open, MaxOpen time.Duration
}

// Defaults of BreakerConfig.
const (
	DefaultOpen    = 30 * time.Second
	DefaultMaxOpen = 10 * time.Minute
)

// breaker is the circuit breaker of one gate. It is not safe for
// concurrent use: the gate's lock guards it.
type breaker struct {
	cfg       BreakerConfig
	state     State
	failures  int
	openFor   time.Duration
	openUntil time.Time
	// probing is true while the one probe of a half-open breaker runs.
	probing bool
	// why is the reason of the last opening, the Detail of its deferrals.
	why string
	// proven is true once a publish succeeded since the start or since the
	// last opening ended with a good probe. Until then the destination may
	// be down from the outset, so no more publishes start at once than the
	// threshold: a receiver that fails everything sees at most
	// failureThreshold requests before the breaker opens, not a whole
	// maxInFlight wave. A healthy one loses one round trip to it.
	proven bool
}

type onChange func(State, string)

func newBreaker(cfg BreakerConfig) breaker {
	cfg.FailureThreshold = max(1, cfg.FailureThreshold)
	if cfg.Open <= 0 {
		cfg.Open = DefaultOpen
	}
	if cfg.MaxOpen <= 0 {
		cfg.MaxOpen = DefaultMaxOpen
	}
	return breaker{cfg: cfg, openFor: cfg.Open}
}

// admit says whether a publish may start now and whether it is the probe;
// when not, until is when to ask again: the end of the open period, or
// retryIn from now while the probe runs.
func (b *breaker) admit(now time.Time, retryIn time.Duration, changed onChange) (probe bool, until time.Time, ok bool) {
	if !b.cfg.Enabled {
		return false, time.Time{}, true
	}
	if b.state == Open {
		if now.Before(b.openUntil) {
			return false, b.openUntil, false
		}
		b.state = HalfOpen
		changed(HalfOpen, fmt.Sprintf("open for %s; one probe publish", b.openFor))
	}
	if b.state == HalfOpen {
		if b.probing {
			return false, now.Add(retryIn), false
		}
		b.probing = true
		return true, time.Time{}, true
	}
	return false, time.Time{}, true
}

// cancelProbe gives the probe back when the probe's publish did not start.
func (b *breaker) cancelProbe(probe bool) {
	if probe {
		b.probing = false
	}
}

// suspect says whether a closed breaker that has seen failures, or no
// success yet, would let more publishes run (inFlight, this one included)
// than could still be needed to reach the threshold.
func (b *breaker) suspect(inFlight int) bool {
	if !b.cfg.Enabled || b.state != Closed || (b.failures == 0 && b.proven) {
		return false
	}
	return b.failures+inFlight > b.cfg.FailureThreshold
}

// report takes the result of a publish that admit let through.
func (b *breaker) report(now time.Time, probe bool, r Result, changed onChange) {
	if !b.cfg.Enabled {
		return
	}
	switch {
	case r.Skipped:
		b.cancelProbe(probe)
	case probe && r.Failed:
		b.probing = false
		b.openFor = min(2*b.openFor, b.cfg.MaxOpen)
		b.open(now, "probe failed: "+r.Reason, changed)
	case probe:
		b.probing = false
		b.state, b.failures, b.openFor, b.proven = Closed, 0, b.cfg.Open, true
		changed(Closed, "probe succeeded")
	case b.state != Closed:
		// A publish that started before the breaker opened: the open
		// period already accounts for the outage.
	case r.Failed:
		b.failures++
		if b.failures >= b.cfg.FailureThreshold {
			b.open(now, fmt.Sprintf("%d consecutive failed attempts, the last: %s", b.failures, r.Reason), changed)
		}
	default:
		b.failures, b.proven = 0, true
	}
}

func (b *breaker) open(now time.Time, reason string, changed onChange) {
	b.state, b.failures = Open, 0
	b.openUntil = now.Add(b.openFor)
	b.why = reason
	changed(Open, fmt.Sprintf("%s; next probe in %s", reason, b.openFor))
}
