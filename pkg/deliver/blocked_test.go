package deliver_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/failure"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/deliver/flow"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// blockable is a publisher whose connection the broker may block: while
// blocked, a publish sends nothing and fails with failure.ErrBlocked, as
// the RabbitMQ publisher does after connection.blocked.
type blockable struct {
	blocked atomic.Bool
	calls   atomic.Int64
	sent    atomic.Int64
}

func (b *blockable) Publish(context.Context, queuebox.Delivery) error {
	b.calls.Add(1)
	if b.blocked.Load() {
		return failure.New("rabbitmq", "webhook-api", "", "", "the broker blocked the connection (low on memory)", failure.ErrBlocked)
	}
	b.sent.Add(1)
	return nil
}

func (*blockable) Close() error { return nil }

// TestABlockedConnectionDefersWithoutSpendingAttempts: while the broker
// blocks the destination's connection, its rows go back to pending with
// no attempt spent, last_error untouched and the breaker closed; the
// destination is paused, so the rows are not tried again and again; once
// the block lifts they are delivered.
func TestABlockedConnectionDefersWithoutSpendingAttempts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "http://127.0.0.1:9")
	for range 20 {
		e.exec(t, `INSERT INTO outbox (topic, payload, max_attempts) VALUES ('order.created', '{}', 1)`)
	}
	pub := &blockable{}
	pub.blocked.Store(true)
	reg := prometheus.NewRegistry()
	set := flow.NewSet([]flow.Config{{Name: "webhook-api", MaxInFlight: 4, HonorRetryAfter: true,
		Breaker: flow.BreakerConfig{Enabled: true, FailureThreshold: 1, Open: time.Hour}}}, reg, nil, quiet())
	p := e.build(t, deliver.Options{Publishers: map[string]queuebox.Publisher{"webhook-api": pub},
		Redactor: redact.New(), Metrics: deliver.NewMetrics(reg), Logger: quiet(), Flow: set})
	start(t, p)
	conn := e.s.Connect(t)
	var calls int64
	require.Eventually(t, func() bool {
		calls = pub.calls.Load()
		var waiting int
		require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox
			WHERE state = 'pending' AND attempt = 0 AND last_error IS NULL AND scheduled_at > now() + interval '2 seconds'`).Scan(&waiting))
		return waiting == 20
	}, 30*time.Second, 10*time.Millisecond, "every row waits for the end of the pause, no attempt spent")
	require.Positive(t, calls)
	// At most maxInFlight publishes find the block per pause (two pauses
	// when the machine is slow): the rest are deferred by the gate.
	require.LessOrEqual(t, calls, int64(8), "the paused destination is not asked again for every row")
	require.Positive(t, deferredFor(t, reg, flow.ReasonRetryAfter))
	require.Equal(t, float64(flow.Closed), gaugeValue(t, reg, "queuebox_destination_circuit_state"),
		"a block is no failure of the destination")

	pub.blocked.Store(false)
	rows := e.waitStates(t, repeat("sent", 20)...)
	for _, r := range rows {
		require.Nil(t, r.LastError)
	}
	require.Equal(t, int64(20), pub.sent.Load())
}

// deferredFor reads queuebox_destination_deferred_total of one reason.
func deferredFor(t *testing.T, reg *prometheus.Registry, reason flow.Reason) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != "queuebox_destination_deferred_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == string(reason) {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
