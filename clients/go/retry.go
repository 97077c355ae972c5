package queuebox

import (
	"math"
	"math/rand/v2"
	"time"
)

// RetryPolicy decides what happens to a message whose handler failed. The
// library calls Decide after it rolled the handler's transaction back,
// from the goroutine of that handler, so Decide must be safe for
// concurrent use when Options.MaxConcurrency is above 1. message.Attempt
// is the attempt that failed (0 for the first delivery).
type RetryPolicy interface {
	Decide(message Message, failure error) FailureAction
}

// RetryPolicyFunc is a function that satisfies RetryPolicy.
type RetryPolicyFunc func(message Message, failure error) FailureAction

// Decide calls f.
func (f RetryPolicyFunc) Decide(message Message, failure error) FailureAction {
	return f(message, failure)
}

// FailureAction is the answer of a RetryPolicy: RetryAfter or DeadLetter.
// The zero value retries at once.
type FailureAction struct {
	dead  bool
	delay time.Duration
}

// RetryAfter returns the message to pending, due after delay, with its
// attempt raised by one. A negative delay counts as zero. The delay is
// stored in whole milliseconds.
func RetryAfter(delay time.Duration) FailureAction {
	return FailureAction{delay: max(delay, 0)}
}

// DeadLetter moves the message to state dead; no worker claims it again.
func DeadLetter() FailureAction { return FailureAction{dead: true} }

// defaultPolicy is the exponential policy with jitter.
type defaultPolicy struct {
	maxAttempts int
	base, ceil  time.Duration
	jitter      float64
}

// NewDefaultRetryPolicy returns the exponential policy: it retries while
// the failed attempt is below maxAttempts and dead-letters after that. The
// delay is baseDelay times 2^attempt, at most maxDelay, changed by a
// random amount of up to jitter of itself either way (0.2 is 20 percent),
// and never above maxDelay. A row starts at attempt 0, so maxAttempts 5
// allows six deliveries. Out-of-range values are clamped: a negative
// maxAttempts or delay to 0, jitter to [0, 1]. The policy is safe for
// concurrent use.
func NewDefaultRetryPolicy(maxAttempts int, baseDelay, maxDelay time.Duration, jitter float64) RetryPolicy {
	return defaultPolicy{
		maxAttempts: max(maxAttempts, 0),
		base:        max(baseDelay, 0),
		ceil:        max(maxDelay, 0),
		jitter:      min(max(jitter, 0), 1),
	}
}

// Decide implements RetryPolicy.
func (p defaultPolicy) Decide(message Message, _ error) FailureAction {
	if message.Attempt >= p.maxAttempts {
		return DeadLetter()
	}
	delay := float64(p.base) * math.Pow(2, float64(max(message.Attempt, 0)))
	delay = math.Min(delay, float64(p.ceil))
	delay *= 1 + p.jitter*(2*rand.Float64()-1)
	return RetryAfter(time.Duration(math.Min(delay, float64(p.ceil))))
}

// The default of Options.RetryPolicy.
const (
	defaultMaxAttempts = 5
	defaultBaseDelay   = time.Second
	defaultMaxDelay    = 5 * time.Minute
	defaultJitter      = 0.2
)
