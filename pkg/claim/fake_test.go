package claim_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/alternayte/queuebox/pkg/claim"
)

// item is a claimed row of the fake source.
type item struct{ id, token string }

func (i item) Lease() claim.Lease { return claim.Lease{ID: i.id, Token: i.token} }

// fakeSource is an in-memory claim.Source. Claim hands out queued items in
// order; Renew keeps every lease except the ids in drop; Reclaim
// returns the next value of reclaims (and requeues the items of requeue).
type fakeSource struct {
	mu        sync.Mutex
	queue     []item
	claims    [][]item // every non-empty claim, in order
	claimErrs []error  // returned by the next Claim calls, one each
	drop      map[string]bool
	renewed   [][]claim.Lease
	reclaims  []int64
	requeue   []item

	claimCalls   atomic.Int64
	renewCalls   atomic.Int64
	reclaimCalls atomic.Int64
	renewFailed  error
	// stopped marks the point after which Renew calls are drain renewals.
	stopped    atomic.Bool
	drainRenew atomic.Int64
}

func newSource(items ...item) *fakeSource {
	return &fakeSource{queue: items, drop: map[string]bool{}}
}

func (s *fakeSource) add(items ...item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, items...)
}

func (s *fakeSource) setDrop(id string, lost bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop[id] = lost
}

func (s *fakeSource) Claim(_ context.Context, limit int) ([]item, error) {
	s.claimCalls.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.claimErrs) > 0 {
		err := s.claimErrs[0]
		s.claimErrs = s.claimErrs[1:]
		return nil, err
	}
	n := min(limit, len(s.queue))
	out := append([]item(nil), s.queue[:n]...)
	s.queue = s.queue[n:]
	if n > 0 {
		s.claims = append(s.claims, out)
	}
	return out, nil
}

func (s *fakeSource) Renew(_ context.Context, leases []claim.Lease) (map[string]bool, error) {
	s.renewCalls.Add(1)
	if s.stopped.Load() {
		s.drainRenew.Add(1)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.renewed = append(s.renewed, append([]claim.Lease(nil), leases...))
	if s.renewFailed != nil {
		return nil, s.renewFailed
	}
	kept := map[string]bool{}
	for _, l := range leases {
		if !s.drop[l.ID] {
			kept[l.ID] = true
		}
	}
	return kept, nil
}

func (s *fakeSource) Reclaim(context.Context) (int64, error) {
	s.reclaimCalls.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reclaims) == 0 {
		return 0, nil
	}
	n := s.reclaims[0]
	s.reclaims = s.reclaims[1:]
	s.queue = append(s.queue, s.requeue...)
	s.requeue = nil
	return n, nil
}

func (s *fakeSource) renewedLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.renewed)
}

// renewedLease reports whether any Renew call carried l.
func (s *fakeSource) renewedLease(l claim.Lease) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, call := range s.renewed {
		for _, got := range call {
			if got == l {
				return true
			}
		}
	}
	return false
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func items(prefix string, n int) []item {
	out := make([]item, n)
	for i := range out {
		out[i] = item{id: fmt.Sprintf("%s-%03d", prefix, i), token: "t1"}
	}
	return out
}

// gate blocks handlers until the test opens it; opening twice is fine.
type gate struct {
	ch   chan struct{}
	once sync.Once
}

func newGate() *gate { return &gate{ch: make(chan struct{})} }

func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

// running starts l and returns a cancel func and a channel closed when Run
// returned. At the end of the test (also after a failed assertion) it
// opens gates, stops the loop and fails the test when Run does not return.
func running(t *testing.T, l *claim.Loop[item], gates ...*gate) (context.CancelFunc, <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(t, l.Run(ctx))
	}()
	t.Cleanup(func() {
		for _, g := range gates {
			g.open()
		}
		cancel()
		select {
		case <-done:
		case <-waitTimeout():
			t.Error("Run did not return at the end of the test")
		}
	})
	return cancel, done
}

// waitClosed fails the test when ch is not closed within a generous bound.
// The bound only catches a hang; it asserts nothing about speed.
func waitTimeout() <-chan time.Time { return time.After(20 * time.Second) }

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-waitTimeout():
		t.Fatalf("%s did not happen", what)
	}
}

const (
	tick    = 5 * time.Millisecond
	forever = time.Hour
	wait    = 10 * time.Second
)
