package httpdest_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/httpdest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// status answers every request with code and body.
func status(code int, body string) brokertest.AnswerFunc {
	return brokertest.Static(brokertest.Answer{Status: code, Body: body})
}

// newPublisher builds a publisher for opts and closes it after the test.
func newPublisher(t *testing.T, opts httpdest.Options) *httpdest.Publisher {
	t.Helper()
	p, err := httpdest.New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

// delivery returns a delivery of a row with the given key and attempt.
func delivery(key string, attempt int) queuebox.Delivery {
	return queuebox.Delivery{
		Message: &queuebox.OutboxMessage{
			ID:      "0190a8c4-6f0e-7b3c-9d21-5a6b7c8d9e0f",
			Topic:   "order.created",
			Key:     key,
			HasKey:  key != "",
			Attempt: attempt,
		},
		Body: []byte(`{"orderId":"o-1"}`),
	}
}

// counter returns a fresh response counter on its own registry.
func counter() *prometheus.CounterVec {
	return httpdest.NewResponsesCounter(prometheus.NewRegistry())
}

func classCount(c *prometheus.CounterVec, class string) float64 {
	var m dto.Metric
	if err := c.WithLabelValues(class).Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// clock is a settable time source for the token cache.
type clock struct{ nanos atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.nanos.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) Now() time.Time          { return time.Unix(0, c.nanos.Load()).UTC() }
func (c *clock) Advance(d time.Duration) { c.nanos.Add(int64(d)) }
