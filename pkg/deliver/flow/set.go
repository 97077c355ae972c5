package flow

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/health"
)

// Set holds the gates of every destination of one poller and their
// metrics. It is immutable after NewSet and safe for concurrent use.
type Set struct {
	gates map[string]*Gate
}

// NewSet builds one gate per config, registers the destination families
// on reg and starts their series at zero. now is the clock of every gate
// (nil: time.Now).
func NewSet(cfgs []Config, reg prometheus.Registerer, now func() time.Time, log *slog.Logger) *Set {
	m := newMetrics(reg)
	s := &Set{gates: map[string]*Gate{}}
	for _, c := range cfgs {
		s.gates[c.Name] = NewGate(c, now, log, m.hooks(c.Name))
	}
	return s
}

// Gate returns the gate of a destination, or nil when it has none (no
// flow control applies then).
func (s *Set) Gate(name string) *Gate {
	if s == nil {
		return nil
	}
	return s.gates[name]
}

// Names lists the destinations, sorted.
func (s *Set) Names() []string {
	names := make([]string, 0, len(s.gates))
	for n := range s.gates {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Check returns the health check of one destination: degraded while its
// breaker is open or half-open, up otherwise. A degraded destination
// never fails readiness: the other destinations still deliver.
func (s *Set) Check(name string) health.Check {
	g := s.gates[name]
	return func(context.Context) error {
		state, until := g.State()
		switch state {
		case Open:
			return health.Degraded(fmt.Sprintf("circuit breaker open until %s; its rows are deferred",
				until.UTC().Format(time.RFC3339)))
		case HalfOpen:
			return health.Degraded("circuit breaker half-open; one probe publish decides")
		}
		return nil
	}
}
