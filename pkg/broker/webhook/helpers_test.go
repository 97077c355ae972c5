package webhook_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/webhook"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// received is one request that a test server saw.
type received struct {
	Method string
	Path   string
	Header http.Header
	Body   string
}

// recorder is a destination that records every request and answers with
// the status that respond returns (200 when respond is nil).
type recorder struct {
	mu      sync.Mutex
	reqs    []received
	respond func(w http.ResponseWriter, r *http.Request)
	srv     *httptest.Server
}

func newRecorder(t *testing.T, respond func(w http.ResponseWriter, r *http.Request)) *recorder {
	t.Helper()
	rec := &recorder{respond: respond}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, received{r.Method, r.URL.RequestURI(), r.Header.Clone(), string(body)})
		rec.mu.Unlock()
		if rec.respond != nil {
			rec.respond(w, r)
		}
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (rec *recorder) requests() []received {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]received(nil), rec.reqs...)
}

func (rec *recorder) URL() string { return rec.srv.URL }

// status returns a respond function that writes code and body.
func status(code int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// newPublisher builds a publisher for opts and closes it after the test.
func newPublisher(t *testing.T, opts webhook.Options) *webhook.Publisher {
	t.Helper()
	p, err := webhook.New(opts)
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
	return webhook.NewResponsesCounter(prometheus.NewRegistry())
}

func classCount(c *prometheus.CounterVec, class string) float64 {
	var m dto.Metric
	if err := c.WithLabelValues(class).Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// refusedURL returns the URL of a loopback port that nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr
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
