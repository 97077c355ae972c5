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
//
// A claimer that can read the oldest row of its scan's index apart from
// its claims (CheckBeside) replaces those periodic full scans by such a
// check, run beside the claims on the same schedule, which only lowers
// the bound: under a transaction open for many minutes a full scan steps
// over every entry that transaction keeps, seconds, and the claim loop
// would wait for it. Its claims then scan from the bound always, but the
// first one and the one after a Reset.
package scanfloor

import (
	"sync"
	"time"
)

const (
	// Slack is how far below the oldest row a scan took the next scan
	// starts: a row written up to Slack before the rows taken, and
	// committed after them, is still in the bounded scan's range; one
	// committed later waits for the next check or full scan. Under an old
	// transaction every scan steps over the entries of the rows claimed in
	// the last Slack, so it is kept short: a second, the time of a slow
	// application transaction.
	Slack = time.Second
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

// Failed records a scan that was given bound and failed after took
// (an error, or its statement's timeout). A failed full scan schedules
// the next one as a finished one would, so that a scan that outlasts the
// claim's timeout (under a transaction open for many minutes) is not
// repeated by every claim; with checks beside, the next claims keep the
// old bound and a check is due at once instead.
func (f *Floor) Failed(bound *time.Time, start time.Time, took time.Duration) {
	f.c.failed(bound == nil, start, took)
}

// CheckBeside makes the floor's periodic full scans checks that the
// caller runs beside its scans (StartCheck, Checked). Call it before the
// first scan.
func (f *Floor) CheckBeside() { f.c.checkBeside() }

// StartCheck reports whether a check is due at now and, when it is, marks
// it running: the caller reads the oldest time of the rows its scan
// would take, from the start of the index, and reports with Checked. A
// check is due once a scan set a bound, when none runs, MinFullEvery and
// FullShare times the last check's time after the one before.
func (f *Floor) StartCheck(now time.Time) bool { return f.c.startCheck(now) }

// Checked records a check that started at start and took took: oldest is
// the earliest time it read, zero when it read none (no such row, or the
// read failed). The bound goes down to Slack below it when that is lower;
// a check never raises it.
func (f *Floor) Checked(start time.Time, took time.Duration, oldest time.Time) {
	f.c.checked(start, took, oldest.Add(-Slack), !oldest.IsZero(), time.Time.After)
}

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

// Failed is Floor.Failed for sequences.
func (s *Seq) Failed(bound *int64, start time.Time, took time.Duration) {
	s.c.failed(bound == nil, start, took)
}

// core is the policy both floors share over their order K.
type core[K any] struct {
	mu       sync.Mutex
	bound    K
	known    bool      // false: no bound yet, every scan is full
	nextFull time.Time // a scan at or after this instant is a full one

	// With checks beside the scans (checkBeside), a scan is full only
	// while full is set (a reset), and checks lower the bound instead.
	beside    bool
	full      bool
	checking  bool      // a check runs
	nextCheck time.Time // a check is due at or after this instant
}

func (c *core[K]) next(now time.Time) *K {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !c.known, c.beside && c.full, !c.beside && !now.Before(c.nextFull):
		return nil
	}
	b := c.bound
	return &b
}

func (c *core[K]) checkBeside() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.beside = true
}

func (c *core[K]) startCheck(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.beside || !c.known || c.checking || now.Before(c.nextCheck) {
		return false
	}
	c.checking = true
	return true
}

func (c *core[K]) checked(start time.Time, took time.Duration, low K, some bool, above func(a, b K) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checking = false
	c.nextCheck = start.Add(max(MinFullEvery, FullShare*took))
	if some && c.known && above(c.bound, low) {
		c.bound = low
	}
}

// done records a scan: low is the bound its rows give (their oldest less
// the slack), meaningful only when some; above orders two bounds.
func (c *core[K]) done(bound *K, start time.Time, took time.Duration, low K, some bool, above func(a, b K) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bound == nil {
		c.nextFull = start.Add(max(MinFullEvery, FullShare*took))
		c.full = false
		if some {
			c.bound, c.known = low, true
		}
		return
	}
	if some && above(low, c.bound) {
		c.bound = low
	}
}

func (c *core[K]) failed(full bool, start time.Time, took time.Duration) {
	if !full {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextFull = start.Add(max(MinFullEvery, FullShare*took))
	if c.beside && c.known {
		c.full, c.nextCheck = false, time.Time{}
	}
}

func (c *core[K]) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextFull, c.full = time.Time{}, true
}
