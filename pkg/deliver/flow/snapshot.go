package flow

import (
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func (g *Gate) countDeferral(r Reason) {
	g.mu.Lock()
	g.deferrals[r]++
	g.mu.Unlock()
}

// Snapshot returns the gate's state as the destinations page shows it:
// the breaker and when an open one lets its probe through, a running
// pause, the publishes in flight and the deferrals by reason since the
// gate was made. It reads under the gate's lock and is safe for
// concurrent use.
func (g *Gate) Snapshot() queuebox.DestinationFlow {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	f := queuebox.DestinationFlow{Destination: g.cfg.Name, Breaker: g.breaker.state.String(),
		BreakerEnabled: g.breaker.cfg.Enabled, InFlight: len(g.slots), MaxInFlight: g.cfg.MaxInFlight,
		Deferred: make(map[string]int64, len(Reasons))}
	if g.breaker.state == Open {
		f.OpenUntil, f.Detail = ptr(g.breaker.openUntil.UTC()), g.breaker.why
	}
	if now.Before(g.pausedUntil) {
		f.PausedUntil = ptr(g.pausedUntil.UTC())
		if f.Detail == "" {
			f.Detail = g.pausedWhy
		}
	}
	for _, r := range Reasons {
		f.Deferred[string(r)] = g.deferrals[r]
	}
	return f
}

func ptr(t time.Time) *time.Time { return &t }

var _ queuebox.FlowReader = (*Set)(nil)

// FlowStates implements queuebox.FlowReader: the snapshot of every gate,
// sorted by destination.
func (s *Set) FlowStates() []queuebox.DestinationFlow {
	out := make([]queuebox.DestinationFlow, 0, len(s.gates))
	for _, name := range s.Names() {
		out = append(out, s.gates[name].Snapshot())
	}
	return out
}
