// Package ingesttest holds the fakes that the tests of the receive step
// and of its sources share: an in-memory inbox (inbox.go), a settable clock, a fake
// transform compiler and a counter reader. It is for tests only.
package ingesttest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/transform"
)

// Clock is a settable clock for the receipt time, the rate limit and the
// HMAC check. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that reads at until it is advanced.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now returns the time of the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Compiler compiles the few expressions that the tests use and records
// the variables of every evaluation: "wrap" returns {"data": input},
// "fail" fails with "boom at position 3", "text" returns a body that is
// not JSON, "slow" waits for its context, and "bad(" does not compile.
// The zero Compiler is ready; it is safe for concurrent use.
type Compiler struct {
	mu   sync.Mutex
	seen []map[string]any
}

// Compile is a transform.Compiler.
func (c *Compiler) Compile(expr string, _ int) (transform.Expression, error) {
	if expr == "bad(" {
		return nil, errors.New("syntax error")
	}
	return fakeExpr{text: expr, c: c}, nil
}

// Vars returns the variables of the evaluations so far, in order.
func (c *Compiler) Vars() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]map[string]any(nil), c.seen...)
}

// Counter reads one series of a counter family of reg: the one whose
// label has value; 0 when absent.
func Counter(t testing.TB, reg prometheus.Gatherer, name, label, value string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
