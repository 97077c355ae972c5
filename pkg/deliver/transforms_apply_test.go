package deliver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

// apply compiles one route and one destination transform (either may
// be nil) and runs them on a row, without a database.
func apply(t *testing.T, ctx context.Context, route, dest *deliver.TransformSpec, payload string) ([]byte, int, *deliver.Failure) {
	t.Helper()
	d := deliver.DestinationSpec{Name: "partner", Kind: "http", Transform: dest}
	routes := []deliver.RouteSpec{{TopicPattern: "**", Destinations: []string{"other"}}, {TopicPattern: "order.*", Destinations: []string{"partner"}, Transform: route}}
	tr, err := deliver.NewTransforms(routes, map[string]deliver.DestinationSpec{"partner": d}, transform.JSONata)
	require.NoError(t, err)
	m := &queuebox.OutboxMessage{
		ID: "6b1f0c1e-9a7d-4f0e-8a1c-2f3d4e5f6a7b", Topic: "order.created", Attempt: 3, Key: "k-1", HasKey: true,
		Payload: []byte(payload), Headers: map[string]string{"x-tenant": "t1"},
		CreatedAt: time.Date(2026, 11, 30, 9, 15, 0, 0, time.FixedZone("CET", 3600)),
	}
	return tr.Apply(ctx, deliver.Route{Index: 1, Spec: routes[1], Destinations: []deliver.DestinationSpec{d}}, d, m)
}

func TestTransformVariablesOfRouteAndDestination(t *testing.T) {
	t.Parallel()
	all := `{"m": $messageId, "t": $topic, "a": $attempt, "ts": $timestamp, "s": $source, "h": $headers,
		"i": $idempotencyKey, "e": $eventType, "k": $key, "p": $}`
	for name, blocks := range map[string][2]*deliver.TransformSpec{
		"route":       {block(all, deliver.StrategyFail), nil},
		"destination": {nil, block(all, deliver.StrategyFail)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			body, skipped, failure := apply(t, t.Context(), blocks[0], blocks[1], `{"n":1}`)
			require.Nil(t, failure)
			require.Zero(t, skipped)
			require.JSONEq(t, `{"m":"6b1f0c1e-9a7d-4f0e-8a1c-2f3d4e5f6a7b","t":"order.created","a":3,
				"ts":"2026-11-30T08:15:00Z","p":{"n":1}}`, string(body), "source-only variables stay unbound")
		})
	}
}

func TestTransformStagesAndStrategies(t *testing.T) {
	t.Parallel()
	const payload = `{"id":"1001","secret":"s"}`
	reshape := block(`{"orderId": id}`, deliver.StrategyFail)
	wrap := block(`{"data": $, "type": $topic}`, deliver.StrategyFail)
	failing := func(onError string) *deliver.TransformSpec { return block(`$error("bad input")`, onError) }
	cases := []struct {
		name        string
		route, dest *deliver.TransformSpec
		body        string
		skipped     int
		strategy    string
		errText     string
	}{
		{name: "route then destination", route: reshape, dest: wrap, body: `{"data":{"orderId":"1001"},"type":"order.created"}`},
		{name: "route Skip sends the payload and skips the destination stage", route: failing(deliver.StrategySkip), dest: wrap, body: payload, skipped: 1},
		{name: "destination Skip sends the route output", route: reshape, dest: failing(deliver.StrategySkip), body: `{"orderId":"1001"}`, skipped: 1},
		{name: "route Fail", route: failing(deliver.StrategyFail), dest: wrap, strategy: deliver.StrategyFail, errText: "routes[1].transform: "},
		{name: "destination Dead", route: reshape, dest: failing(deliver.StrategyDead), strategy: deliver.StrategyDead, errText: "destinations.partner.transform: "},
		{name: "undefined result is an error", dest: block(`nothing`, deliver.StrategyDead), strategy: deliver.StrategyDead, errText: "produced no value"},
		{name: "null result is a body", dest: block(`null`, deliver.StrategyDead), body: `null`},
		{name: "timeout", route: &deliver.TransformSpec{Expression: `($f := function($n){ $f($n+1) }; $f(0))`, TimeoutMs: 20, MaxDepth: 100, OnError: deliver.StrategyDead},
			strategy: deliver.StrategyDead, errText: "routes[1].transform: the evaluation ran past timeoutMs (20 ms)"},
		{name: "maxDepth", dest: &deliver.TransformSpec{Expression: `($f := function($n){ $n = 0 ? 0 : $f($n-1) + 1 }; $f(50))`, TimeoutMs: 1000, MaxDepth: 10, OnError: deliver.StrategyFail},
			strategy: deliver.StrategyFail, errText: "D1011"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body, skipped, failure := apply(t, t.Context(), tc.route, tc.dest, payload)
			require.Equal(t, tc.skipped, skipped)
			if tc.strategy == "" {
				require.Nil(t, failure)
				require.JSONEq(t, tc.body, string(body))
				return
			}
			require.NotNil(t, failure)
			require.Nil(t, body)
			require.Equal(t, tc.strategy, failure.Strategy)
			require.False(t, failure.Cancelled)
			require.Contains(t, failure.Err.Error(), tc.errText)
		})
	}
}

// A delivery cancelled while a stage runs (shutdown, lost claim) is not a
// transform failure: Skip must not send the payload on, and no strategy
// applies.
func TestTransformCancelledDeliveryIsNoFailure(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	body, skipped, failure := apply(t, ctx, block(`{"orderId": id}`, deliver.StrategySkip), nil, `{"id":"1"}`)
	require.Nil(t, body)
	require.Zero(t, skipped)
	require.NotNil(t, failure)
	require.True(t, failure.Cancelled)
}
