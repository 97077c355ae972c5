package deliver_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// staleClaimStore is a memStore whose first claim answers only after the
// test lets it, as to a replica stopped (SIGSTOP) while the claim ran:
// meanwhile the lease ran out and another replica took the row, so every
// renewal of the first token misses it. retake hands the row out again,
// as the claim after the reclaim does.
type staleClaimStore struct {
	*memStore
	once    sync.Once
	sent    chan struct{}
	answer  chan struct{}
	stale   string // the token of the first claim
	retaken queuebox.ClaimedMessage
}

func (s *staleClaimStore) Claim(ctx context.Context, limit int) ([]queuebox.ClaimedMessage, error) {
	rows, err := s.memStore.Claim(ctx, limit)
	if len(rows) > 0 {
		s.once.Do(func() { close(s.sent); <-s.answer })
	}
	return rows, err
}

func (s *staleClaimStore) Renew(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error) {
	kept, err := s.memStore.Renew(ctx, leases)
	for _, l := range leases {
		if l.Token == s.stale {
			delete(kept, l.ID)
		}
	}
	return kept, err
}

func (s *staleClaimStore) retake() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.due = append(s.due, s.retaken)
}

// TestRowWhoseLeaseRanOutIsNotPublished: a replica gets a claim's answer
// only after the lease ran out (it was stopped meanwhile). It must not
// publish the row, which another replica owns by now; it writes no
// outcome and counts a lost claim. The row is still delivered, once, by
// the claim that takes it after the reclaim.
func TestRowWhoseLeaseRanOutIsNotPublished(t *testing.T) {
	t.Parallel()
	// Long enough that the claim after the reclaim, on a busy machine,
	// leaves the publish more than a quarter of it.
	const lease = 2 * time.Second
	row := claimed("a", "order.created", 0, 3)
	again := claimed("a", "order.created", 0, 3)
	again.ClaimToken = "token-after-the-reclaim"
	store := &staleClaimStore{memStore: newMemStore(row), sent: make(chan struct{}), answer: make(chan struct{}),
		stale: row.ClaimToken, retaken: again}
	pub := &scriptedPublisher{}
	fr := newFakeRoutes()
	router, err := deliver.NewRouter(fr.routes, fr.dests)
	require.NoError(t, err)
	m := deliver.NewMetrics(prometheus.NewRegistry())
	p, err := deliver.NewPoller(deliver.Options{Store: store, Router: router,
		Publishers: map[string]queuebox.Publisher{"api": pub}, Redactor: redact.New(), Metrics: m, Logger: quiet(),
		PollInterval: 10 * time.Millisecond, RetryBaseDelay: time.Second, ClaimTimeout: lease})
	require.NoError(t, err)
	start(t, p)

	<-store.sent
	from := time.Now()
	require.Eventually(t, func() bool { return time.Since(from) > lease }, 20*time.Second, 5*time.Millisecond)
	close(store.answer)
	require.Eventually(t, func() bool { return testutil.ToFloat64(m.ClaimsLost) == 1 },
		20*time.Second, 5*time.Millisecond, "the stale claim is counted as lost")
	pub.mu.Lock()
	published := len(pub.bodies)
	pub.mu.Unlock()
	require.Zero(t, published, "a row whose lease ran out is not published")

	store.retake()
	got := store.outcome(t, "a")
	require.Equal(t, queuebox.OutcomeSent, got.Kind)
	require.Equal(t, again.Lease(), got.Lease, "the outcome is written under the new claim only")
	pub.mu.Lock()
	defer pub.mu.Unlock()
	require.Len(t, pub.bodies, 1, "the row is delivered once")
	require.Equal(t, 1.0, testutil.ToFloat64(m.ClaimsLost))
}
