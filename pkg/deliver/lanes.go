package deliver

import (
	"context"
	"sync"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// A lane is a key and a destination: the claim keeps the rows of one
// lane in sequence order and lets the lanes of one key run apart, so a
// destination that fails holds back only its own rows. The claim can
// order a keyed row only once it knows the row's destination, and the
// routes (globs, configuration) live here, not in SQL: so before each
// claim, laneSource routes the keyed rows written since the one before
// (Unrouted, then Assign), and after it, it fans out the claimed rows
// without a key whose route names several destinations. A row keeps the
// destination it was given, even when the routes change later.

// routeBatch is the most unrouted keyed rows one routing step reads; a
// full read is followed by another before the claim.
const routeBatch = 500

// maxRouteRounds bounds the routing steps before one claim, so a burst of
// inserts never delays the claim of rows already routed for long.
const maxRouteRounds = 4

// laneSource is the poller's claim source: the store, with routing before
// each claim and the fan-out of rows routed at their claim after it. It
// is safe for concurrent use, as claim.Source requires.
type laneSource struct {
	queuebox.OutboxStore
	router *Router
	logger interface {
		Warn(msg string, args ...any)
	}
	// dead counts a row that the routing step marked dead.
	dead func(id, reason string)
	// warned limits the warnings of a failing routing step to one a
	// minute; the claim goes on without it.
	mu     sync.Mutex
	warned time.Time
}

// Claim routes the keyed rows that wait for a destination, claims, then
// fans out the claimed rows without a key that need it. A failed routing
// step does not fail the claim: rows already routed are still claimed,
// and the unrouted ones wait for the next step.
func (s *laneSource) Claim(ctx context.Context, limit int) ([]queuebox.ClaimedMessage, error) {
	s.routeKeyed(ctx)
	rows, err := s.OutboxStore.Claim(ctx, limit)
	if err != nil {
		return nil, err
	}
	s.fanOutClaimed(ctx, rows)
	return rows, nil
}

// routeKeyed gives the pending keyed rows without a destination theirs.
// A row whose topic no route matches goes dead, as a row without a key
// does at its claim, so it never holds back the rest of its key.
func (s *laneSource) routeKeyed(ctx context.Context) {
	for range maxRouteRounds {
		rows, err := s.Unrouted(ctx, routeBatch)
		if err != nil {
			s.warn("reading the keyed rows to route failed; they wait for the next claim", err)
			return
		}
		as := make([]queuebox.Assignment, len(rows))
		for i, r := range rows {
			as[i] = queuebox.Assignment{ID: r.ID, Destinations: s.router.DestinationsOf(r.Topic)}
			if len(as[i].Destinations) == 0 {
				as[i].DeadReason = noRouteReason(r.Topic)
			}
		}
		if len(as) > 0 {
			routed, err := s.Assign(ctx, as)
			if err != nil {
				s.warn("routing keyed rows failed; they wait for the next claim", err)
				return
			}
			s.countDead(as, routed)
		}
		if len(rows) < routeBatch {
			return
		}
	}
}

// countDead reports the rows of as that went dead at routing.
func (s *laneSource) countDead(as []queuebox.Assignment, routed map[string]bool) {
	if s.dead == nil {
		return
	}
	for _, a := range as {
		if a.DeadReason != "" && routed[a.ID] {
			s.dead(a.ID, a.DeadReason)
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
		s.warn("fanning out claimed rows failed; they are deferred and fanned out at their next claim", err)
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

func (s *laneSource) warn(msg string, err error) {
	s.mu.Lock()
	now := time.Now()
	quiet := now.Sub(s.warned) < time.Minute
	if !quiet {
		s.warned = now
	}
	s.mu.Unlock()
	if !quiet && s.logger != nil {
		s.logger.Warn(msg, "err", err)
	}
}
