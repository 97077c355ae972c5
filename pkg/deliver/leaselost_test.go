package deliver_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestLeaseLostDuringThePublishIsCountedOnce: another owner takes the row
// while its publish hangs. The renewal misses the lease and cancels the
// publish; the loss is logged and counted exactly once, and the row is
// delivered after the reclaim.
func TestLeaseLostDuringThePublishIsCountedOnce(t *testing.T) {
	t.Parallel()
	hang := &hangFirst{first: make(chan struct{})}
	srv := httptest.NewServer(hang)
	t.Cleanup(srv.Close)
	e := newEnv(t, srv.URL)
	// Short, for a quick reclaim, but long enough that a claim on a busy
	// machine leaves the publish a quarter of it: after a claim that took
	// longer the poller gives the row up unpublished (see
	// claim.Loop.Live), and the loss would count twice.
	e.settings.ClaimTimeout = 2 * time.Second
	out := &logBuffer{}
	p, m := e.loggedPoller(t, out)
	e.exec(t, `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{}')`)
	start(t, p)

	waitClosed(t, hang.first)
	// Another replica's claim replaces the token.
	e.exec(t, `UPDATE outbox SET claim_token = gen_random_uuid()`)
	e.waitStates(t, "sent")

	// The cancelled handler counts and logs the loss on its own
	// goroutine, which a busy machine may run after the reclaimed row
	// is already sent; it logs after it counts.
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "lease lost") },
		30*time.Second, 5*time.Millisecond, "the loss is logged")
	require.Equal(t, 1.0, testutil.ToFloat64(m.ClaimsLost), out.String())
	require.Equal(t, 1, strings.Count(out.String(), "lease lost"), out.String())
}

// hangFirst holds the first request open until its client goes away, and
// answers 200 to the others.
type hangFirst struct {
	once  sync.Once
	first chan struct{}
}

func (h *hangFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The server notices a closed connection only once the body is read.
	_, _ = io.Copy(io.Discard, r.Body)
	isFirst := false
	h.once.Do(func() { isFirst = true; close(h.first) })
	if isFirst {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute): // bounds the hang if the poller never gives up
		}
		return
	}
	w.WriteHeader(http.StatusOK)
}

func waitClosed(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal("the first request did not arrive")
	}
}

// loggedPoller builds a poller that logs to out, with its metrics.
func (e *env) loggedPoller(t *testing.T, out *logBuffer) (*deliver.Poller, *deliver.Metrics) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m := deliver.NewMetrics(reg)
	return e.build(t, deliver.Options{Publishers: map[string]queuebox.Publisher{"webhook-api": e.webhook(t, reg)},
		Redactor: redact.New(), Metrics: m, Logger: slog.New(slog.NewTextHandler(out, nil))}), m
}
