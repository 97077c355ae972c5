package webhook

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// limiter is the one token bucket of a source. It refills at
// requestsPerMinute/60 tokens a second and holds at most requestsPerMinute
// tokens. That capacity means a request is refused only when the source
// already accepted requestsPerMinute requests in the last 60 seconds, so
// a sender that keeps to the configured rate is never refused, while a
// steady flood is held to the configured rate. The nil *limiter admits
// everything.
type limiter struct{ bucket *rate.Limiter }

func newLimiter(requestsPerMinute int) *limiter {
	if requestsPerMinute <= 0 {
		return nil
	}
	perSecond := rate.Limit(float64(requestsPerMinute) / 60)
	return &limiter{bucket: rate.NewLimiter(perSecond, requestsPerMinute)}
}

// admit takes a token at now. When none is left it takes nothing and
// returns the whole seconds (at least 1) until one will be there.
func (l *limiter) admit(now time.Time) (retryAfter int, ok bool) {
	if l == nil {
		return 0, true
	}
	r := l.bucket.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	if delay <= 0 {
		return 0, true
	}
	r.CancelAt(now)
	return max(1, int(math.Ceil(delay.Seconds()))), false
}
