package flow

import "time"

// bucket is the token bucket of ratePerSecond. It holds at most a tenth
// of a second of tokens, so a rate holds over any window of a second or
// more without a burst above it. A row that finds it empty is deferred
// to a slot of its own after the slots handed out before it, so a
// backlog spreads over the coming seconds instead of coming back all at
// once. It is not safe for concurrent use: the gate's lock guards it.
type bucket struct {
	rate     float64 // tokens per second; 0: no limit
	capacity float64
	tokens   float64
	last     time.Time
	// booked is the latest slot handed to a deferred row.
	booked time.Time
}

func newBucket(perSecond int, now time.Time) bucket {
	if perSecond <= 0 {
		return bucket{}
	}
	rate := float64(perSecond)
	capacity := max(1, rate/10)
	return bucket{rate: rate, capacity: capacity, tokens: capacity, last: now}
}

// take takes a token, or says when the row should come back.
func (b *bucket) take(now time.Time) (time.Time, bool) {
	if b.rate == 0 {
		return time.Time{}, true
	}
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(b.capacity, b.tokens+elapsed.Seconds()*b.rate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return time.Time{}, true
	}
	interval := time.Duration(float64(time.Second) / b.rate)
	next := now.Add(time.Duration((1 - b.tokens) * float64(time.Second) / b.rate))
	if slot := b.booked.Add(interval); slot.After(next) {
		next = slot
	}
	b.booked = next
	return next, false
}
