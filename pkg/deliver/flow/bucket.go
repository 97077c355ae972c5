package flow

import "time"

// maxSpread bounds how far ahead of now the bucket books a deferred row.
const maxSpread = time.Second

// bucket is the token bucket of ratePerSecond. It holds at most half a
// second of tokens: enough that a claim loop slowed down by a busy machine
// (a deferred row comes back through a claim) loses no tokens, and little
// enough that any window of ten seconds sees at most 5 % above the rate.
// A row that finds it empty is deferred to a slot one token after the
// slot handed out before it, so the rows of a backlog come back spread
// over the next second instead of all at once; past maxSpread the slots
// start again at the next token, so a row that comes back to find its
// token taken waits at most that long again, never behind a growing
// queue of bookings. It is not safe for concurrent use: the gate's lock
// guards it.
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
	capacity := max(1, rate/2)
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
	next := now.Add(time.Duration((1 - b.tokens) * float64(time.Second) / b.rate))
	slot := b.booked.Add(time.Duration(float64(time.Second) / b.rate))
	if slot.Before(next) || slot.After(now.Add(maxSpread)) {
		slot = next
	}
	b.booked = slot
	return slot, false
}
