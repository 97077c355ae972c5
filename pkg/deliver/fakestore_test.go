package deliver_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/transform"
)

// memStore is an in-memory queuebox.OutboxStore: every claim hands out
// the rows given to it once, every lease stays held, and each written
// outcome is recorded. It lets the routing, transform and outcome logic
// of the poller run without a database.
type memStore struct {
	mu       sync.Mutex
	due      []queuebox.ClaimedMessage
	outcomes map[string]queuebox.Outcome
	// assigned records every assignment written; failAssign makes Assign
	// fail.
	assigned   []queuebox.Assignment
	failAssign error
	// unrouted are handed out once, by the first Unrouted.
	unrouted []queuebox.UnroutedRow
	// keyOrder makes the store one without the lane columns.
	keyOrder bool
}

// Lanes implements queuebox.LaneStore.
func (s *memStore) Lanes() bool { return !s.keyOrder }

var _ queuebox.OutboxStore = (*memStore)(nil)

func newMemStore(rows ...queuebox.ClaimedMessage) *memStore {
	return &memStore{due: rows, outcomes: map[string]queuebox.Outcome{}}
}

func (s *memStore) Claim(_ context.Context, limit int) ([]queuebox.ClaimedMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := min(limit, len(s.due))
	out := s.due[:n]
	s.due = s.due[n:]
	return out, nil
}

func (s *memStore) Renew(_ context.Context, leases []queuebox.Lease) (map[string]bool, error) {
	kept := map[string]bool{}
	for _, l := range leases {
		kept[l.ID] = true
	}
	return kept, nil
}

func (s *memStore) Reclaim(context.Context) (int64, error) { return 0, nil }

// Unrouted hands out the unrouted rows set on the store once; the rows
// given to newMemStore are claimed as they are.
func (s *memStore) Unrouted(_ context.Context, limit int) ([]queuebox.UnroutedRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := min(limit, len(s.unrouted))
	out := s.unrouted[:n]
	s.unrouted = s.unrouted[n:]
	return out, nil
}

func (s *memStore) Assign(_ context.Context, as []queuebox.Assignment) (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failAssign != nil {
		return nil, s.failAssign
	}
	routed := map[string]bool{}
	for _, a := range as {
		s.assigned = append(s.assigned, a)
		routed[a.ID] = true
	}
	return routed, nil
}

func (s *memStore) Finish(_ context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := map[string]bool{}
	for _, o := range outcomes {
		s.outcomes[o.Lease.ID] = o
		kept[o.Lease.ID] = true
	}
	return kept, nil
}

func (s *memStore) FinishAgain(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	return s.Finish(ctx, outcomes)
}

func (s *memStore) Pending(context.Context) (queuebox.PendingStats, error) {
	return queuebox.PendingStats{ByTopic: map[string]int64{}}, nil
}

// outcome waits for the outcome of row id.
func (s *memStore) outcome(t *testing.T, id string) queuebox.Outcome {
	t.Helper()
	var got queuebox.Outcome
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		o, ok := s.outcomes[id]
		got = o
		return ok
	}, 20*time.Second, 5*time.Millisecond, "no outcome for %s", id)
	return got
}

// scriptedPublisher answers each publish with err and records the bodies.
type scriptedPublisher struct {
	mu     sync.Mutex
	err    error
	bodies []string
}

func (p *scriptedPublisher) Publish(_ context.Context, d queuebox.Delivery) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bodies = append(p.bodies, string(d.Body))
	return p.err
}

func (p *scriptedPublisher) Close() error { return nil }

func claimed(id, topic string, attempt, maxAttempts int) queuebox.ClaimedMessage {
	return queuebox.ClaimedMessage{OutboxMessage: &queuebox.OutboxMessage{
		ID: id, Topic: topic, Payload: []byte(`{"n":1}`), Headers: map[string]string{},
		Attempt: attempt, MaxAttempts: maxAttempts, ClaimToken: "token-" + id,
	}}
}

// fakeRoutes sends order.* to the HTTP destination api, the one with a
// publisher, and audit.* to broker, which has none.
type fakeRoutes struct {
	routes []deliver.RouteSpec
	dests  map[string]deliver.DestinationSpec
}

func newFakeRoutes() fakeRoutes {
	return fakeRoutes{
		routes: []deliver.RouteSpec{
			{TopicPattern: "order.*", Destinations: []string{"api"}},
			{TopicPattern: "audit.*", Destinations: []string{"broker"}},
		},
		dests: map[string]deliver.DestinationSpec{
			"api":    {Name: "api", Kind: "http"},
			"broker": {Name: "broker", Kind: "rabbitmq"},
		},
	}
}

// runFake runs a poller over store with the given publisher for "api"
// until the test ends.
func runFake(t *testing.T, fr fakeRoutes, store *memStore, pub queuebox.Publisher) *deliver.Metrics {
	t.Helper()
	router, err := deliver.NewRouter(fr.routes, fr.dests)
	require.NoError(t, err)
	transforms, err := deliver.NewTransforms(fr.routes, fr.dests, transform.JSONata)
	require.NoError(t, err)
	m := deliver.NewMetrics(prometheus.NewRegistry())
	p, err := deliver.NewPoller(deliver.Options{Store: store, Router: router,
		Publishers: map[string]queuebox.Publisher{"api": pub}, Transforms: transforms,
		Redactor: redact.New(), Metrics: m, Logger: quiet(),
		PollInterval: 10 * time.Millisecond, RetryBaseDelay: time.Second})
	require.NoError(t, err)
	start(t, p)
	return m
}

func TestPollerOutcomesOverAFakeStore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		row        queuebox.ClaimedMessage
		publishErr error
		kind       queuebox.OutcomeKind
		errorText  string
	}{
		{name: "accepted publish is sent", row: claimed("a", "order.created", 0, 3), kind: queuebox.OutcomeSent},
		{name: "failed publish retries", row: claimed("b", "order.created", 0, 3), publishErr: errors.New("HTTP 503"),
			kind: queuebox.OutcomeRetry, errorText: "Publish to api failed: HTTP 503"},
		{name: "failure at max_attempts is dead", row: claimed("c", "order.created", 3, 3), publishErr: errors.New("HTTP 503"),
			kind: queuebox.OutcomeDead, errorText: "Publish to api failed: HTTP 503"},
		{name: "no route is dead", row: claimed("d", "invoice.paid", 0, 3),
			kind: queuebox.OutcomeDead, errorText: "No route matches topic invoice.paid"},
		{name: "destination without publisher is dead", row: claimed("e", "audit.login", 0, 3),
			kind: queuebox.OutcomeDead, errorText: "Destination broker of type rabbitmq has no publisher in this build"},
		{name: "unreadable headers column is dead", row: func() queuebox.ClaimedMessage {
			m := claimed("f", "order.created", 0, 3)
			m.HeadersErr = errors.New("the headers column must hold a JSON object, not an array")
			return m
		}(), kind: queuebox.OutcomeDead, errorText: "Row cannot be delivered: the headers column must hold a JSON object, not an array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := newMemStore(tc.row)
			runFake(t, newFakeRoutes(), store, &scriptedPublisher{err: tc.publishErr})
			got := store.outcome(t, tc.row.ID)
			require.Equal(t, tc.kind, got.Kind)
			require.Equal(t, tc.errorText, got.Error)
			require.Equal(t, tc.row.Lease(), got.Lease, "the outcome is fenced on the claim's lease")
			if tc.kind == queuebox.OutcomeRetry {
				require.Positive(t, got.Delay, "a retry waits before it is due again")
			}
		})
	}
}

func TestPollerRouteTransformDeadStrategyOverAFakeStore(t *testing.T) {
	t.Parallel()
	fr := newFakeRoutes()
	fr.routes[0].Transform = &deliver.TransformSpec{Expression: `$error("refused")`, TimeoutMs: 100, MaxDepth: 100,
		OnError: deliver.StrategyDead}
	store := newMemStore(claimed("g", "order.created", 0, 3))
	pub := &scriptedPublisher{}
	m := runFake(t, fr, store, pub)
	got := store.outcome(t, "g")
	require.Equal(t, queuebox.OutcomeDead, got.Kind)
	require.Contains(t, got.Error, "Transform failed")
	require.Empty(t, pub.bodies, "a row the transform sent dead is never published")
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(m.TransformFailures.WithLabelValues(deliver.StrategyDead)) == 1
	}, 20*time.Second, 5*time.Millisecond)
}

func TestPollerPublishesEveryRowOfABatchOverAFakeStore(t *testing.T) {
	t.Parallel()
	var rows []queuebox.ClaimedMessage
	for i := range 250 {
		rows = append(rows, claimed(fmt.Sprintf("row-%03d", i), "order.created", 0, 3))
	}
	store := newMemStore(rows...)
	pub := &scriptedPublisher{}
	runFake(t, newFakeRoutes(), store, pub)
	for _, r := range rows {
		require.Equal(t, queuebox.OutcomeSent, store.outcome(t, r.ID).Kind)
	}
	pub.mu.Lock()
	defer pub.mu.Unlock()
	require.Len(t, pub.bodies, len(rows), "each claimed row is published once")
}
