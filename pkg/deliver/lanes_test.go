package deliver_test

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// fanOutRoutes sends pay.* to api and then broker (a fan-out) and
// order.* to api alone.
func fanOutRoutes() fakeRoutes {
	fr := newFakeRoutes()
	fr.routes = []deliver.RouteSpec{
		{TopicPattern: "pay.*", Destinations: []string{"api", "broker"}},
		{TopicPattern: "order.*", Destinations: []string{"api"}},
	}
	return fr
}

// A claimed row without a destination whose route fans out is fanned out
// under its own claim before any publish: it keeps the first destination
// and is published there, and the outcome names it.
func TestPollerFansOutAClaimedRowUnderItsClaim(t *testing.T) {
	t.Parallel()
	row := claimed("p1", "pay.made", 0, 3)
	store := newMemStore(row)
	pub := &scriptedPublisher{}
	runFake(t, fanOutRoutes(), store, pub)
	got := store.outcome(t, "p1")
	require.Equal(t, queuebox.OutcomeSent, got.Kind)
	require.Equal(t, "api", got.Destination, "the outcome records the row's destination")
	store.mu.Lock()
	defer store.mu.Unlock()
	require.Equal(t, []queuebox.Assignment{{ID: "p1", Token: "token-p1", Destinations: []string{"api", "broker"}}},
		store.assigned, "one assignment, fenced on the row's claim")
}

// A fan-out that could not be written defers the row (no attempt spent,
// nothing published), so its next claim writes the fan-out again.
func TestPollerDefersARowWhoseFanOutFailed(t *testing.T) {
	t.Parallel()
	row := claimed("p2", "pay.made", 0, 3)
	store := newMemStore(row)
	store.failAssign = errors.New("connection reset")
	pub := &scriptedPublisher{}
	runFake(t, fanOutRoutes(), store, pub)
	got := store.outcome(t, "p2")
	require.Equal(t, queuebox.OutcomeDefer, got.Kind)
	require.Empty(t, got.Destination, "the row stays unrouted")
	require.Empty(t, pub.bodies, "nothing is published before the fan-out is written")
}

// A row keeps the destination it was given: it is published there when
// the routes still send its topic there, and goes dead with a reason that
// names both when they no longer do; a row routed at its claim to a
// single destination gets that one.
func TestPollerHonoursTheRowsDestination(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, topic, dest string
		kind              queuebox.OutcomeKind
		errorText         string
	}{
		{name: "routed to a destination its route names", topic: "pay.made", dest: "api", kind: queuebox.OutcomeSent},
		{name: "routed before the routes changed", topic: "order.paid", dest: "broker", kind: queuebox.OutcomeDead,
			errorText: "No route sends topic order.paid to destination broker any more (the routes changed after the row was routed there)"},
		{name: "routed to a destination no longer configured", topic: "pay.made", dest: "gone", kind: queuebox.OutcomeDead,
			errorText: "No route sends topic pay.made to destination gone any more (the routes changed after the row was routed there)"},
		{name: "unrouted with one destination", topic: "order.paid", kind: queuebox.OutcomeSent},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			row := claimed("r", tc.topic, 0, 3)
			row.Destination = tc.dest
			store := newMemStore(row)
			runFake(t, fanOutRoutes(), store, &scriptedPublisher{})
			got := store.outcome(t, "r")
			require.Equal(t, tc.kind, got.Kind)
			require.Equal(t, tc.errorText, got.Error)
			if tc.kind == queuebox.OutcomeSent {
				require.Equal(t, "api", got.Destination)
			}
			store.mu.Lock()
			defer store.mu.Unlock()
			require.Empty(t, store.assigned, "a routed row or a single destination needs no assignment")
		})
	}
}

// Keyed rows are routed before the claim: each gets its route's
// destinations, and one whose topic no route matches goes dead with the
// reason a claimed row would get, counted as dead.
func TestPollerRoutesKeyedRowsBeforeTheClaim(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	store.unrouted = []queuebox.UnroutedRow{{ID: "k1", Topic: "pay.made"}, {ID: "k2", Topic: "order.paid"}, {ID: "k3", Topic: "nowhere"}}
	m := runFake(t, fanOutRoutes(), store, &scriptedPublisher{})
	require.Eventually(t, func() bool {
		store.mu.Lock()
		defer store.mu.Unlock()
		return len(store.assigned) == 3
	}, 20*time.Second, 5*time.Millisecond)
	store.mu.Lock()
	require.Equal(t, []queuebox.Assignment{
		{ID: "k1", Destinations: []string{"api", "broker"}},
		{ID: "k2", Destinations: []string{"api"}},
		{ID: "k3", DeadReason: "No route matches topic nowhere"},
	}, store.assigned)
	store.mu.Unlock()
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(m.Messages.WithLabelValues("dead")) == 1
	}, 20*time.Second, 5*time.Millisecond)
}

// An outbox without the lane columns cannot hold the deliveries of a
// fan-out: the poller refuses such a route at start, naming its key.
func TestPollerRefusesAFanOutOnAnOutboxWithoutLanes(t *testing.T) {
	t.Parallel()
	fr := fanOutRoutes()
	router, err := deliver.NewRouter(fr.routes, fr.dests)
	require.NoError(t, err)
	store := newMemStore()
	store.keyOrder = true
	_, err = deliver.NewPoller(deliver.Options{Store: store, Router: router,
		Metrics: deliver.NewMetrics(prometheus.NewRegistry())})
	require.ErrorContains(t, err, "routes[0].destinations")
	require.ErrorContains(t, err, "destination and origin_id")
	store.keyOrder = false
	_, err = deliver.NewPoller(deliver.Options{Store: store, Router: router,
		Metrics: deliver.NewMetrics(prometheus.NewRegistry())})
	require.NoError(t, err)
}
