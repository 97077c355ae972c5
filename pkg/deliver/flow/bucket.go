package flow

import (
	"time"

	"golang.org/x/time/rate"
)

// maxSpread bounds how far ahead of now the bucket books a deferred row.
const maxSpread = time.Second

// bucket is the rate limit of ratePerSecond: a token bucket
// (golang.org/x/time/rate) that holds at most half a second of tokens
// (at least one): enough that a claim loop slowed down by a busy machine
// (a deferred row comes back through a claim) loses no tokens, and little
// enough that any window of ten seconds sees at most 5 % above the rate.
// A row that finds it empty is deferred to a slot one token after the
// slot handed out before it, so the rows of a backlog come back spread
// over the next second instead of all at once; past maxSpread the slots
// start again at the next token, so a row that comes back to find its
// token taken waits at most that long again, never behind a growing
// queue of bookings. The bookings are not safe for concurrent use: the
// gate's lock guards them.
type bucket struct {
	limiter  *rate.Limiter // nil: no limit
	perToken time.Duration
	// booked is the latest slot handed to a deferred row.
	booked time.Time
}

func newBucket(perSecond int) bucket {
	if perSecond <= 0 {
		return bucket{}
	}
	return bucket{
		limiter:  rate.NewLimiter(rate.Limit(perSecond), max(1, perSecond/2)),
		perToken: time.Duration(float64(time.Second) / float64(perSecond)),
	}
}

// take takes a token, or says when the row should come back.
func (b *bucket) take(now time.Time) (time.Time, bool) {
	if b.limiter == nil || b.limiter.AllowN(now, 1) {
		return time.Time{}, true
	}
	// AllowN refused without spending: the next token is due when the
	// fraction left has grown to one.
	missing := 1 - b.limiter.TokensAt(now)
	next := now.Add(time.Duration(missing * float64(b.perToken)))
	slot := b.booked.Add(b.perToken)
	if slot.Before(next) || slot.After(now.Add(maxSpread)) {
		slot = next
	}
	b.booked = slot
	return slot, false
}
