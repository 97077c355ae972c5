package flow

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// The snapshot shows an open breaker with its end and reason, the
// deferrals it caused by reason, the publishes in flight, and a closed
// breaker again once its probe succeeded.
func TestSnapshotShowsTheBreakerAndDeferrals(t *testing.T) {
	t.Parallel()
	c := newClock()
	s := NewSet([]Config{breakerConfig()}, prometheus.NewRegistry(), c.Now, nil)
	g := s.Gate("orders")
	openBreaker(t, g)
	requireDeferred(t, g, ReasonCircuitOpen, time.Time{})
	requireDeferred(t, g, ReasonCircuitOpen, time.Time{})

	got := s.FlowStates()
	require.Len(t, got, 1)
	f := got[0]
	require.Equal(t, "orders", f.Destination)
	require.Equal(t, "open", f.Breaker)
	require.True(t, f.BreakerEnabled)
	require.Equal(t, c.Now().Add(10*time.Second), *f.OpenUntil)
	require.Contains(t, f.Detail, "status 500")
	require.Equal(t, map[string]int64{"in_flight": 0, "rate": 0, "circuit_open": 2, "retry_after": 0}, f.Deferred)
	require.Equal(t, 4, f.MaxInFlight)

	c.Advance(10 * time.Second)
	p, d := g.Admit(context.Background())
	require.Nil(t, d)
	require.Equal(t, "half-open", g.Snapshot().Breaker)
	require.Equal(t, 1, g.Snapshot().InFlight)
	p.Done(Result{})
	f = g.Snapshot()
	require.Equal(t, "closed", f.Breaker)
	require.Nil(t, f.OpenUntil)
	require.Zero(t, f.InFlight)
}
