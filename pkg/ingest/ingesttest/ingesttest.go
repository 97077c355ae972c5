// Package ingesttest holds the fakes that the tests of the receive step
// and of its sources share: an in-memory inbox, a settable clock, a fake
// transform compiler and a counter reader. It is for tests only.
package ingesttest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

// Inbox is an in-memory queuebox.InboxStore that deduplicates like the
// unique constraint on (source, idempotency key) and can fail on demand.
// Set Fail and Refuse before the first Insert. It is safe for concurrent
// use.
type Inbox struct {
	// Fail, when set, fails every insert with it.
	Fail error
	// Refuse, when set, fails the insert of each row it returns an error
	// for.
	Refuse func(queuebox.ReceivedRow) error

	mu   sync.Mutex
	rows []queuebox.ReceivedRow
	keys map[string]bool
}

var _ queuebox.InboxStore = (*Inbox)(nil)

// Insert stores row unless its key is taken; it returns the id of the
// row and whether it was inserted.
func (s *Inbox) Insert(_ context.Context, row queuebox.ReceivedRow) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return "", false, s.Fail
	}
	if s.Refuse != nil {
		if err := s.Refuse(row); err != nil {
			return "", false, err
		}
	}
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	k := row.Source + "\x00" + row.IdempotencyKey
	if s.keys[k] {
		return "", false, nil
	}
	s.keys[k] = true
	s.rows = append(s.rows, row)
	return row.ID, true, nil
}

// Rows returns a copy of the stored rows, in insert order.
func (s *Inbox) Rows() []queuebox.ReceivedRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]queuebox.ReceivedRow(nil), s.rows...)
}

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
