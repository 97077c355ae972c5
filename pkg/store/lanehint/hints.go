// Package lanehint keeps, per lane, where a claim's walk may look for the
// lane's head.
//
// The claims of the outbox and of the relay walk their lanes (key and
// destination; the relay's aggregates) one probe per lane, and each probe
// reads the lane from the first entry of a partial index of the rows in
// play. While a transaction older than them is open anywhere in the
// database, PostgreSQL keeps the entries of every row of the lane that
// left the index's condition since, and the probe steps over each of
// them, a heap visit apiece: at a few hundred keyed rows a second, twenty
// minutes of an idle transaction make a walk of a thousand lanes cost
// seconds. A hint is the place of the last head a claim took in the lane
// (the outbox: its sequence); the lane's head is at or after it, so a
// probe from the hint skips the entries before it.
//
// A hint is right only while no row of its lane comes back below it.
// The moves back to pending (the workbench's resend, move and replay
// jobs, the admin replay) are counted in the database (migration V18),
// and a claim uses the hints only when the count it reads in its own
// snapshot is the one they were taken under; a row that a transaction
// commits later than rows of its lane written after it (the order of
// such rows is not the order of their commits in any case) or one made
// pending by hand is found by the next walk without hints, which runs at
// least every scanfloor.MinFullEvery, as the scan floor's full scans do.
// Until then the hinted walk takes the rows after the hint, so a second
// writer of a lane that commits below it has its own later rows go
// first. The outbox leaves that to its writers (one writer per key); on
// the inbox, which two sources or ingest replicas may write at once for
// one aggregate, PostgreSQL's ingest rules it out: it stores the rows of
// an aggregate under the aggregate's lock and stamps created_at after it
// (inbox_aggregate_lock.sql), so none commits below a claimed head.
//
// On a partitioned table a claim also starts its read of the oldest
// active row from a hint (Plan.ActiveFrom), the full walks included: from
// the start, that read steps over the entries an old transaction keeps in
// every partition, seconds under a long one, and the claim loop would
// stall on it. A row committed late below that hint is found instead by a
// read of the oldest active row alone, which the claimer runs beside its
// claims (StartActiveCheck, ActiveChecked) as often as the full walks
// run, and which only ever lowers the hint.
//
// Only lanes a process claimed at least twice are hinted: with a key per
// message (a lane per row) a hint would cost a probe of an empty lane and
// save nothing.
package lanehint

import (
	"slices"
	"sync"
	"time"

	"github.com/alternayte/queuebox/pkg/store/scanfloor"
)

// MaxHints is the most lanes one claim is given hints for: the lanes
// claimed most recently.
const MaxHints = 1024

// Lane is a lane of the walk: a key and, on the outbox, a destination.
type Lane struct {
	Key         string
	Destination string
}

// Plan is what one claim is given: the hinted lanes and their places, in
// no particular order (the database sorts them in its collation), the
// requeue count they were taken under and, on a partitioned table, where
// the probe of the oldest active row starts. A full walk has no lanes, a
// nil Count and a nil ActiveFrom until a claim read the requeue count.
type Plan[P any] struct {
	Lanes  []Lane
	Places []P
	Count  *int64
	// ActiveFrom is scanfloor.Slack below the oldest active row's
	// created_at that the last claim read, nil when none read one. It is
	// a hint of the same kind as the lanes': no row older than that
	// becomes active again but by a counted move (or a late commit, which
	// the active check finds), so the claim uses it only under Count, in
	// full walks too.
	ActiveFrom *time.Time
	full       bool
}

// Full says the plan is a walk without lane hints.
func (p Plan[P]) Full() bool { return p.full }

// Keys and Destinations are the plan's lanes as two columns, the shape of
// the claim's parameters.
func (p Plan[P]) Keys() []string { return column(p.Lanes, func(l Lane) string { return l.Key }) }

// Destinations is the destination column of Keys.
func (p Plan[P]) Destinations() []string {
	return column(p.Lanes, func(l Lane) string { return l.Destination })
}

func column(lanes []Lane, f func(Lane) string) []string {
	out := make([]string, len(lanes))
	for i, l := range lanes {
		out[i] = f(l)
	}
	return out
}

// Taken is a head a claim took: its lane and its place in the lane.
type Taken[P any] struct {
	Lane  Lane
	Place P
}

// Seen is what a claim's statement read: the requeue count (nil when it
// read none: it took no row, or the database keeps no count), the heads
// of lanes it took and the oldest active row's created_at (nil when it
// read none: no row, or a table without partitions).
type Seen[P any] struct {
	Count  *int64
	Taken  []Taken[P]
	Active *time.Time
}

type entry[P any] struct {
	place  P
	claims int
	last   time.Time // when a claim last took a head of the lane
	gen    uint64    // the full walk period it was last taken in
}

// Hints are the hints of one claimer over places P, ordered by after. The
// zero value is not ready: use New. It is safe for concurrent use.
type Hints[P any] struct {
	after func(a, b P) bool // a comes after b in its lane

	mu       sync.Mutex
	lanes    map[Lane]*entry[P]
	count    int64
	counted  bool      // count holds: the hints were taken under it
	nextFull time.Time // a claim at or after this instant walks in full
	gen      uint64
	active   *time.Time // the ActiveFrom of the next plan

	checking  bool      // an active check runs
	nextCheck time.Time // an active check is due at or after this instant
}

// New returns empty hints over places ordered by after.
func New[P any](after func(a, b P) bool) *Hints[P] {
	return &Hints[P]{after: after, lanes: map[Lane]*entry[P]{}}
}

// Next returns the plan of a claim that starts at now: a full walk when
// no requeue count is known yet or a full walk is due, else the hints of
// the lanes claimed at least twice (at most MaxHints, the latest). Once
// the count is known, a full walk carries it and ActiveFrom too.
func (h *Hints[P]) Next(now time.Time) Plan[P] {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.counted {
		return Plan[P]{full: true}
	}
	count := h.count
	if !now.Before(h.nextFull) {
		return Plan[P]{Count: &count, ActiveFrom: h.active, full: true}
	}
	type hint struct {
		lane Lane
		e    *entry[P]
	}
	var hs []hint
	for l, e := range h.lanes {
		if e.claims >= 2 {
			hs = append(hs, hint{l, e})
		}
	}
	if len(hs) > MaxHints {
		slices.SortFunc(hs, func(a, b hint) int { return b.e.last.Compare(a.e.last) })
		hs = hs[:MaxHints]
	}
	p := Plan[P]{Lanes: make([]Lane, len(hs)), Places: make([]P, len(hs)), Count: &count, ActiveFrom: h.active}
	for i, x := range hs {
		p.Lanes[i], p.Places[i] = x.lane, x.e.place
	}
	return p
}

// Done records a claim that ran plan p, started at start, took took and
// read seen. A count other than the hints' drops them all first. A full
// walk schedules the next one (at least scanfloor.MinFullEvery later, and
// scanfloor.FullShare times as long as it took) and forgets the lanes no
// claim took since the full walk before it.
func (h *Hints[P]) Done(p Plan[P], start time.Time, took time.Duration, seen Seen[P]) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// A claim planned before an active check lowered the bound read its
	// oldest row above the bound, and would raise it back.
	lowered := p.ActiveFrom != nil && h.active != nil && p.ActiveFrom.After(*h.active)
	if seen.Active != nil && !lowered {
		from := seen.Active.Add(-scanfloor.Slack)
		h.active = &from
	}
	if p.Full() {
		h.nextFull = start.Add(max(scanfloor.MinFullEvery, scanfloor.FullShare*took))
		h.gen++
		for l, e := range h.lanes {
			if e.gen+1 < h.gen {
				delete(h.lanes, l)
			}
		}
	}
	count := seen.Count
	if count == nil {
		return
	}
	if !h.counted || *count != h.count {
		clear(h.lanes)
		h.count, h.counted = *count, true
	}
	for _, t := range seen.Taken {
		e := h.lanes[t.Lane]
		if e == nil {
			h.lanes[t.Lane] = &entry[P]{place: t.Place, claims: 1, last: start, gen: h.gen}
			continue
		}
		if h.after(t.Place, e.place) {
			e.place = t.Place
		}
		e.claims++
		e.last, e.gen = start, h.gen
	}
}

// Failed records a claim that ran plan p, started at start and failed
// (an error, or its statement's timeout) after took. A failed full walk
// schedules the next one as a finished one would: under a transaction
// open for many minutes a full walk can outlast the claim's timeout, and
// without this every claim after it would walk in full, and fail, in
// turn. Hints and counts stay as they were.
func (h *Hints[P]) Failed(p Plan[P], start time.Time, took time.Duration) {
	if !p.Full() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nextFull = start.Add(max(scanfloor.MinFullEvery, scanfloor.FullShare*took))
}

// StartActiveCheck reports whether the read of the oldest active row
// without a bound is due at now and, when it is, marks it running: the
// caller runs it and reports with ActiveChecked. It is due once a claim
// read the requeue count, when none runs, at least MinFullEvery and
// FullShare times its own last time after the one before.
func (h *Hints[P]) StartActiveCheck(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.counted || h.checking || now.Before(h.nextCheck) {
		return false
	}
	h.checking = true
	return true
}

// ActiveChecked records an active check that started at start and took
// took: oldest is the oldest active row's created_at it read (nil when it
// read none, or failed). The bound of the next plans goes down to Slack
// below oldest when that is lower; it never goes up here.
func (h *Hints[P]) ActiveChecked(start time.Time, took time.Duration, oldest *time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checking = false
	h.nextCheck = start.Add(max(scanfloor.MinFullEvery, scanfloor.FullShare*took))
	if oldest == nil || h.active == nil {
		return
	}
	if from := oldest.Add(-scanfloor.Slack); from.Before(*h.active) {
		h.active = &from
	}
}

// Reset makes the next claim a full walk.
func (h *Hints[P]) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nextFull = time.Time{}
}
