package deliver_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/transform"
)

func withTransforms(t *testing.T, e *env, route, dest *deliver.TransformSpec) {
	t.Helper()
	e.routes[0].Transform = route
	d := e.dests["webhook-api"]
	d.Transform = dest
	e.dests["webhook-api"] = d
	tr, err := deliver.NewTransforms(e.routes, e.dests, transform.JSONata)
	require.NoError(t, err)
	e.transforms = tr
}

func block(expr, onError string) *deliver.TransformSpec {
	return &deliver.TransformSpec{Expression: expr, TimeoutMs: 100, MaxDepth: 100, OnError: onError}
}

func TestRouteThenDestinationTransform(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, ok)
	e := newEnv(t, rc.URL)
	withTransforms(t, e,
		block(`{ "orderId": order.id, "total": $sum(order.items.(price * quantity)) }`, deliver.StrategyFail),
		block(`{ "data": $, "topic": $topic, "attempt": $attempt }`, deliver.StrategyFail))
	e.exec(t, `INSERT INTO outbox (topic, payload) VALUES ('order.created',
		'{"order":{"id":"1001","items":[{"price":10,"quantity":2},{"price":5,"quantity":3}]}}')`)
	p, _ := e.poller(t)
	start(t, p)
	e.waitStates(t, "sent")
	require.JSONEq(t, `{"data":{"orderId":"1001","total":35},"topic":"order.created","attempt":0}`, rc.Requests()[0].Body)
	var payload string
	require.NoError(t, e.s.Connect(t).QueryRow(t.Context(), `SELECT payload::text FROM outbox`).Scan(&payload))
	require.Contains(t, payload, `"items"`, "the row keeps its payload")
}

func TestTransformStrategies(t *testing.T) {
	t.Parallel()
	failing := `$error("no")`
	cases := []struct {
		strategy string
		state    string
		body     string
	}{
		{deliver.StrategySkip, "sent", `{"n": 1}`},
		{deliver.StrategyDead, "dead", ""},
		{deliver.StrategyFail, "dead", ""}, // max_attempts 1: one retry, then dead
	}
	for _, tc := range cases {
		t.Run(tc.strategy, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t, ok)
			e := newEnv(t, rc.URL)
			withTransforms(t, e, nil, block(failing, tc.strategy))
			e.exec(t, `INSERT INTO outbox (topic, payload, max_attempts) VALUES ('order.created', '{"n": 1}', 1)`)
			p, m := e.poller(t)
			start(t, p)
			rows := e.waitStates(t, tc.state)
			if tc.body != "" {
				require.JSONEq(t, tc.body, rc.Requests()[0].Body, "Skip passes the input on")
			} else {
				require.Empty(t, rc.Requests())
				require.Contains(t, *rows[0].LastError, "Transform failed: ")
			}
			want := 1.0
			if tc.strategy == deliver.StrategyFail {
				want = 2 // attempt 0 and attempt 1
				require.Equal(t, 1, rows[0].Attempt)
			} else {
				require.Equal(t, 0, rows[0].Attempt)
			}
			require.Equal(t, want, testutil.ToFloat64(m.TransformFailures.WithLabelValues(tc.strategy)))
		})
	}
}
