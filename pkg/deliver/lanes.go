package deliver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// A lane is a key and a destination: the claim keeps the rows of one
// lane in sequence order and lets the lanes of one key run apart, so a
// destination that fails holds back only its own rows. The claim can
// order a keyed row only once it knows the row's destination, and the
// routes (globs, configuration) live here, not in SQL: so keyRouter routes
// the keyed rows soon after they are written (Unrouted, then Assign) and
// wakes the claim, and laneSource, the claim source, fans out the claimed
// rows without a key whose route names several destinations. A row keeps
// the destination it was given, even when the routes change later.

// routeBatch is the most unrouted keyed rows one routing step reads; a
// full read is followed by another at once.
const routeBatch = 500

// laneSource is the poller's claim source: the store, with the fan-out of
// the rows routed at their claim after it. It is safe for concurrent use,
// as claim.Source requires.
type laneSource struct {
	queuebox.OutboxStore
	router *Router
	warn   *warner
	// postponer's moves in flight hold the claim back (settled).
	postponer *postponer
}

// Claim claims, then fans out the claimed rows without a key that need
// it. It first waits for a paused destination's backlog to finish moving.
func (s *laneSource) Claim(ctx context.Context, limit int) ([]queuebox.ClaimedMessage, error) {
	if err := s.postponer.settled(ctx); err != nil {
		return nil, err
	}
	rows, err := s.OutboxStore.Claim(ctx, limit)
	if err != nil {
		return nil, err
	}
	s.fanOutClaimed(ctx, rows)
	return rows, nil
}

// keyRouter gives the pending keyed rows without a destination theirs, on
// its own goroutine: at each wake-up (an insert seen by capture), at
// least every poll interval, and at once again after a full batch. A
// routing step is not part of a claim, so its time never counts against
// a lease.
type keyRouter struct {
	store    queuebox.OutboxStore
	router   *Router
	interval time.Duration
	warn     *warner
	// dead counts a row that the routing step marked dead.
	dead func(id, reason string)
	// routed is called after a step that routed rows: the claim can take
	// them now.
	routed func()
	wake   chan struct{}
}

func newKeyRouter(store queuebox.OutboxStore, router *Router, interval time.Duration, warn *warner,
	dead func(id, reason string), routed func()) *keyRouter {
	return &keyRouter{store: store, router: router, interval: interval, warn: warn, dead: dead, routed: routed,
		wake: make(chan struct{}, 1)}
}

// Wake asks for a routing step now; it never blocks.
func (r *keyRouter) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// run routes until ctx ends.
func (r *keyRouter) run(ctx context.Context) {
	t := time.NewTimer(r.interval)
	defer t.Stop()
	for ctx.Err() == nil {
		n, full := r.step(ctx)
		if n > 0 {
			r.routed()
		}
		if full {
			continue
		}
		t.Reset(r.interval)
		select {
		case <-ctx.Done():
		case <-r.wake:
		case <-t.C:
		}
	}
}

// step routes up to routeBatch rows and says how many it routed and
// whether it read a full batch (more may wait). A row whose topic no
// route matches goes dead, as a row without a key does at its claim, so
// it never holds back the rest of its key.
func (r *keyRouter) step(ctx context.Context) (routed int, full bool) {
	rows, err := r.store.Unrouted(ctx, routeBatch)
	if err != nil {
		if ctx.Err() == nil {
			r.warn.warn("reading the keyed rows to route failed; they wait for the next step", err)
		}
		return 0, false
	}
	if len(rows) == 0 {
		return 0, false
	}
	as := make([]queuebox.Assignment, len(rows))
	for i, row := range rows {
		as[i] = queuebox.Assignment{ID: row.ID, Destinations: r.router.DestinationsOf(row.Topic)}
		if len(as[i].Destinations) == 0 {
			as[i].DeadReason = noRouteReason(row.Topic)
		}
	}
	done, err := r.store.Assign(ctx, as)
	if err != nil {
		if ctx.Err() == nil {
			r.warn.warn("routing keyed rows failed; they wait for the next step", err)
		}
		return 0, false
	}
	r.countDead(as, done)
	return len(done), len(rows) == routeBatch
}

// countDead reports the rows of as that went dead at routing.
func (r *keyRouter) countDead(as []queuebox.Assignment, routed map[string]bool) {
	if r.dead == nil {
		return
	}
	for _, a := range as {
		if a.DeadReason != "" && routed[a.ID] {
			r.dead(a.ID, a.DeadReason)
		}
	}
}

// noRouteReason is the last_error of a row whose topic no route matches.
func noRouteReason(topic string) string { return "No route matches topic " + topic }

// fanOutClaimed routes the claimed rows without a destination whose
// route names several destinations: each keeps the first, and a delivery
// is added for every other one, in one statement for the batch. A row
// whose fan-out was not written keeps no destination; deliver defers it
// (see resolve), so its fan-out is tried again at its next claim.
func (s *laneSource) fanOutClaimed(ctx context.Context, rows []queuebox.ClaimedMessage) {
	var as []queuebox.Assignment
	for _, r := range rows {
		if r.Destination != "" {
			continue
		}
		if names := s.router.DestinationsOf(r.Topic); len(names) > 1 {
			as = append(as, queuebox.Assignment{ID: r.ID, Token: r.ClaimToken, Destinations: names})
		}
	}
	if len(as) == 0 {
		return
	}
	routed, err := s.Assign(ctx, as)
	if err != nil {
		s.warn.warn("fanning out claimed rows failed; they are deferred and fanned out at their next claim", err)
		return
	}
	for _, r := range rows {
		if r.Destination == "" && routed[r.ID] {
			r.Destination = s.router.DestinationOf(r.Topic)
		}
	}
}

// NextDue forwards to the store when it can say when its next row falls
// due; otherwise ok is false and the loop keeps its poll interval.
func (s *laneSource) NextDue(ctx context.Context, since time.Duration) (time.Duration, bool, error) {
	if nd, ok := s.OutboxStore.(queuebox.NextDuer); ok {
		return nd.NextDue(ctx, since)
	}
	return 0, false, nil
}

// warner logs a failing background step at most once a minute: the step
// is tried again soon, so every try would flood the log. It is safe for
// concurrent use.
type warner struct {
	logger *slog.Logger
	mu     sync.Mutex
	last   time.Time
}

func (w *warner) warn(msg string, err error) {
	w.mu.Lock()
	now := time.Now()
	quiet := now.Sub(w.last) < time.Minute
	if !quiet {
		w.last = now
	}
	w.mu.Unlock()
	if !quiet {
		w.logger.Warn(msg, "err", err)
	}
}
