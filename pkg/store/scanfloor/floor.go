// Package scanfloor keeps where a claim's scan of unkeyed rows may start.
//
// The unkeyed rows of a queue table are claimed in the order of a partial
// index of pending rows (the outbox: scheduled_at, sequence; the relay's
// inbox: created_at, id), and the keyed outbox rows that wait for their
// destination are routed in the order of another (sequence). PostgreSQL cannot remove the entries of rows
// that left the index's condition while a transaction older than them is
// open anywhere in the database, and an index scan cannot mark them dead
// either: every claim then steps over one entry for every row claimed
// since that transaction began, before it reaches the first pending one.
// At a few hundred rows a second, twenty minutes of an idle transaction
// make that a second per claim.
//
// A Floor remembers a lower bound for the scan, a little before the
// oldest row the last scans took, so that a claim starts near the rows
// still waiting. The bound is a hint, never a rule: a row can fall below
// it (a transaction that commits its rows more than Slack after it wrote
// them, a lease that expired, a row made pending again by hand), so a
// full scan without a bound runs at least every MinFullEvery, and no more
// often than keeps full scans under one part in FullShare of the time
// spent claiming. A row below the bound thus waits for at most one full
// scan's turn, which on a healthy database is MinFullEvery.
package scanfloor

import (
	"sync"
	"time"
)

const (
	// Slack is how far below the oldest row a scan took the next scan
	// starts: a row written up to Slack before the rows taken, and
	// committed after them, is still in the bounded scan's range.
	Slack = 5 * time.Second
	// SeqSlack is Slack for a scan in sequence order, in sequence numbers:
	// a second or two of rows at a few hundred a second.
	SeqSlack = 1_000
	// MinFullEvery is the shortest time between two full scans.
	MinFullEvery = time.Second
	// FullShare bounds the full scans' part of the claim time: the next
	// full scan waits FullShare times as long as the last one took.
	FullShare = 20
)

// Floor is the bound of one claimer's scans in time order (scheduled_at
// or created_at). The zero value is ready and asks for a full scan first;
// it is safe for concurrent use.
type Floor struct{ c core[time.Time] }

// Next returns the lower bound of the next scan, or nil when it is to be
// a full scan (no bound known yet, or a full scan is due at now).
func (f *Floor) Next(now time.Time) *time.Time { return f.c.next(now) }

// Done records a scan that started at start and took took: bound is what
// Next returned for it, and oldest the earliest time (scheduled_at or
// created_at, as the claim orders) of the unkeyed rows it claimed, zero
// when it claimed none. A full scan sets the bound from its rows (or
// keeps the old one when it took none) and schedules the next full scan;
// a bounded scan only raises the bound.
func (f *Floor) Done(bound *time.Time, start time.Time, took time.Duration, oldest time.Time) {
	f.c.done(bound, start, took, oldest.Add(-Slack), !oldest.IsZero(), time.Time.After)
}

// Reset makes the next scan a full one: rows went back to pending with
// times that may be below the bound (a reclaim of expired leases).
func (f *Floor) Reset() { f.c.reset() }

// Seq is a Floor for a scan in sequence order. The zero value is ready
// and asks for a full scan first; it is safe for concurrent use.
type Seq struct{ c core[int64] }

// Next returns the lowest sequence the next scan reads, or nil when it is
// to be a full scan.
func (s *Seq) Next(now time.Time) *int64 { return s.c.next(now) }

// Done is Floor.Done for sequences: oldest is the lowest sequence of the
// rows the scan took, and some says whether it took any.
func (s *Seq) Done(bound *int64, start time.Time, took time.Duration, oldest int64, some bool) {
	s.c.done(bound, start, took, oldest-SeqSlack, some, func(a, b int64) bool { return a > b })
}

// Reset makes the next scan a full one.
func (s *Seq) Reset() { s.c.reset() }

// core is the policy both floors share over their order K.
type core[K any] struct {
	mu       sync.Mutex
	bound    K
	known    bool      // false: no bound yet, every scan is full
	nextFull time.Time // a scan at or after this instant is a full one
}

func (c *core[K]) next(now time.Time) *K {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known || !now.Before(c.nextFull) {
		return nil
	}
	b := c.bound
	return &b
}

// done records a scan: low is the bound its rows give (their oldest less
// the slack), meaningful only when some; above orders two bounds.
func (c *core[K]) done(bound *K, start time.Time, took time.Duration, low K, some bool, above func(a, b K) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bound == nil {
		c.nextFull = start.Add(max(MinFullEvery, FullShare*took))
		if some {
			c.bound, c.known = low, true
		}
		return
	}
	if some && above(low, c.bound) {
		c.bound = low
	}
}

func (c *core[K]) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextFull = time.Time{}
}
