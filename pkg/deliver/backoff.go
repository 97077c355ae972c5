package deliver

import (
	"math/rand/v2"
	"time"
)

// MaxRetryDelay caps the backoff of a failed delivery.
const MaxRetryDelay = 60 * time.Second

// RetryDelay is the wait before the next attempt after a failure at
// attempt: base × 2^attempt plus a random 0 to 25 percent, at most
// MaxRetryDelay. jitter is a value in [0, 1) that scales the random part.
func RetryDelay(base time.Duration, attempt int, jitter float64) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 0; i < attempt && d < MaxRetryDelay; i++ {
		d *= 2
	}
	d += time.Duration(float64(d) * 0.25 * jitter)
	return min(d, MaxRetryDelay)
}

// randomJitter returns a jitter for RetryDelay.
func randomJitter() float64 { return rand.Float64() }
