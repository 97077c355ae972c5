// Package backoff holds the one capped doubling backoff and the one
// cancellable wait of QueueBox. Every loop that reconnects, re-reads or
// requeues after a failure (broker sources, capture, the wake listener,
// retention) takes its delays from here instead of keeping its own copy.
// Paced spaces a periodic read that turned slow (the pending gauges).
package backoff

import (
	"context"
	"time"
)

// Delay is the wait before the next try after failures failed tries in a
// row: first, doubling with each further failure, never above limit. A
// failures of 0 or less is treated as 1; a limit below first is raised to
// first.
func Delay(first, limit time.Duration, failures int) time.Duration {
	limit = max(limit, first)
	d := first
	for i := 1; i < failures && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// Doubling counts failures in a row and hands out their Delay. The zero
// value with Min and Max set is ready to use. It is not safe for
// concurrent use: each loop owns its own.
type Doubling struct {
	// Min is the first delay, Max the cap.
	Min, Max time.Duration
	failures int
}

// Next records one more failure and returns the wait before the next try.
func (b *Doubling) Next() time.Duration {
	b.failures++
	return Delay(b.Min, b.Max, b.failures)
}

// Reset forgets the failures: the next Next returns Min again. Call it
// once a try succeeded (a connection that got to consume, a store that
// committed).
func (b *Doubling) Reset() { b.failures = 0 }

// Failures is the number of failures in a row recorded since the last
// Reset.
func (b *Doubling) Failures() int { return b.failures }

// Sleep waits d or until ctx ends, whichever comes first, and reports
// whether the whole of d passed. A ctx that is already done returns false
// at once, even for a d of zero.
func Sleep(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// SlowShare is how much of one connection's time a periodic read may
// take: after a read that took took, Paced waits SlowShare-1 times as long
// before the next, when that is longer than the read's interval.
const SlowShare = 10

// Paced returns the wait before the next run of a periodic read that runs
// every interval and whose last run took took: the interval, or, for a
// read slower than a tenth of it, SlowShare-1 times its time, so that the
// read never takes more than one part in SlowShare of a connection. A
// gauge that counts the rows of a growing backlog otherwise takes seconds
// of every few, from the database that has fallen behind.
func Paced(interval, took time.Duration) time.Duration {
	return max(interval, (SlowShare-1)*took)
}
