package deliver_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/deliver/flow"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// gated builds a poller whose webhook-api has the gate cfg, on its own
// registry as one replica would.
func (e *env) gated(t *testing.T, cfg flow.Config) (*deliver.Poller, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	cfg.Name = "webhook-api"
	set := flow.NewSet([]flow.Config{cfg}, reg, nil, quiet())
	return e.build(t, deliver.Options{Publishers: map[string]queuebox.Publisher{"webhook-api": e.webhook(t, reg)},
		Redactor: redact.New(), Metrics: deliver.NewMetrics(reg), Logger: quiet(), Flow: set}), reg
}

// TestAnOpenBreakerDefersWithoutSpendingAttempts: a destination that
// fails every request opens its breaker after failureThreshold attempts;
// from then on its rows go back to pending until the end of the open
// period with no attempt spent and no request sent.
func TestAnOpenBreakerDefersWithoutSpendingAttempts(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, func(request) int { return http.StatusInternalServerError })
	e := newEnv(t, rc.URL)
	e.settings.RetryBaseDelay = time.Millisecond
	for i := range 5 {
		e.exec(t, `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES ('order.created', $1, '{}', 100)`, fmt.Sprint("k", i))
	}
	p, reg := e.gated(t, flow.Config{MaxInFlight: 2,
		Breaker: flow.BreakerConfig{Enabled: true, FailureThreshold: 3, Open: time.Hour}})
	start(t, p)
	conn := e.s.Connect(t)
	// Every row ends pending until the end of the open period: deferred
	// one by one, or moved there with the backlog when the pause began.
	var rows []row
	require.Eventually(t, func() bool {
		rows = e.rows(t, conn)
		var waiting int
		require.NoError(t, conn.QueryRow(context.Background(),
			`SELECT count(*) FROM outbox WHERE state = 'pending' AND scheduled_at > now() + interval '30 minutes'`).Scan(&waiting))
		return waiting == len(rows)
	}, 30*time.Second, 10*time.Millisecond, "every row waits for the end of the open period")
	require.Equal(t, float64(flow.Open), gaugeValue(t, reg, "queuebox_destination_circuit_state"))
	attempts := 0
	for _, r := range rows {
		attempts += r.Attempt
	}
	require.Equal(t, 3, attempts, "the deferred rows spent no attempt")
	require.Len(t, rc.Requests(), 3, "and no request was sent for them")
}

// TestOrderPerKeyHoldsThroughDeferrals: three pollers share the table; the
// destination answers 429 with Retry-After: 1 now and then, and a rate
// limit defers rows too. Every key still arrives in insert order.
func TestOrderPerKeyHoldsThroughDeferrals(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	var mu sync.Mutex
	seen := map[string][]int{}
	rc := brokertest.NewHTTPReceiver(t, func(r request) brokertest.Answer {
		if n.Add(1)%13 == 0 {
			return brokertest.Answer{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"1"}}}
		}
		var body struct {
			Key string `json:"key"`
			N   int    `json:"n"`
		}
		if err := jsonUnmarshal(string(r.Body), &body); err != nil {
			t.Errorf("body: %v", err)
		}
		mu.Lock()
		seen[body.Key] = append(seen[body.Key], body.N)
		mu.Unlock()
		return brokertest.Answer{}
	})
	e := newEnv(t, rc.URL)
	const keys, perKey = 6, 8
	for i := range perKey {
		for k := range keys {
			e.exec(t, `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES ('order.created', $1, $2, 100)`,
				strconv.Itoa(k), fmt.Sprintf(`{"key":"%d","n":%d}`, k, i))
		}
	}
	for range 3 {
		p, _ := e.gated(t, flow.Config{MaxInFlight: 2, RatePerSecond: 40, HonorRetryAfter: true,
			Breaker: flow.BreakerConfig{Enabled: true, FailureThreshold: 100, Open: time.Second}})
		start(t, p)
	}
	want := make([]string, keys*perKey)
	for i := range want {
		want[i] = "sent"
	}
	e.waitStates(t, want...)
	mu.Lock()
	defer mu.Unlock()
	for k, got := range seen {
		require.Len(t, got, perKey, "key %s", k)
		for i := range got {
			require.Equal(t, i, got[i], "key %s in insert order: %v", k, got)
		}
	}
}

func counterSum(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	n, err := testutil.GatherAndCount(reg, name)
	require.NoError(t, err)
	if n == 0 {
		return 0
	}
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// TestAnOpenBreakerMovesTheBacklogOutOfTheClaims: once the breaker of a
// destination opens, one statement moves its due backlog to the end of
// the open period, so the claims stop taking and deferring its rows batch
// by batch.
func TestAnOpenBreakerMovesTheBacklogOutOfTheClaims(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, func(request) int { return http.StatusInternalServerError })
	e := newEnv(t, rc.URL)
	e.settings.BatchSize = 10
	e.exec(t, `INSERT INTO outbox (topic, payload, max_attempts) SELECT 'order.created', '{}', 100 FROM generate_series(1, 300)`)
	p, reg := e.gated(t, flow.Config{MaxInFlight: 1,
		Breaker: flow.BreakerConfig{Enabled: true, FailureThreshold: 2, Open: time.Hour}})
	start(t, p)
	conn := e.s.Connect(t)
	require.Eventually(t, func() bool {
		var due int
		require.NoError(t, conn.QueryRow(context.Background(),
			`SELECT count(*) FROM outbox WHERE scheduled_at < now() + interval '30 minutes'`).Scan(&due))
		return due == 0
	}, 30*time.Second, 20*time.Millisecond, "every row waits for the end of the open period")
	require.Len(t, rc.Requests(), 2)
	require.Less(t, counterSum(t, reg, "queuebox_destination_deferred_total"), float64(60),
		"a few batches deferred row by row, not the whole backlog")
	// The pause is recorded once, for the workbench, with its reason, its
	// cause and an end no earlier than the moved rows' time.
	var (
		n              int
		reason, detail string
		coversRows     bool
	)
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*), min(reason), min(detail),
		bool_and(until_at >= (SELECT max(scheduled_at) FROM outbox) - interval '5 seconds')
		FROM queuebox_destination_pauses WHERE destination = 'webhook-api'`).Scan(&n, &reason, &detail, &coversRows))
	require.Equal(t, 1, n)
	require.Equal(t, "circuit_open", reason)
	require.Contains(t, detail, "2 consecutive failed attempts")
	require.True(t, coversRows)
}

func gaugeValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no family %s", name)
	return 0
}
