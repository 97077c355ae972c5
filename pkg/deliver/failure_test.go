package deliver_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// failing is a publisher whose every publish fails with the same text.
type failing struct{ text string }

func (f failing) Publish(context.Context, queuebox.Delivery) error { return errors.New(f.text) }
func (failing) Close() error                                       { return nil }

// logBuffer collects log output from several goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// customPoller builds a poller on e with the given publisher, redactor
// and log output.
func (e *env) customPoller(t *testing.T, pub queuebox.Publisher, r *redact.Redactor, out *logBuffer) *deliver.Poller {
	t.Helper()
	return e.build(t, deliver.Options{Publishers: map[string]queuebox.Publisher{"webhook-api": pub}, Redactor: r,
		Metrics: deliver.NewMetrics(prometheus.NewRegistry()), Logger: slog.New(slog.NewTextHandler(out, nil))})
}

// A failure reason goes through the key rules of the redaction even when
// no secret value is known, and the failed attempts are logged with the
// same masked text.
func TestFailureReasonIsRedactedInLastErrorAndLog(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]*redact.Redactor{"nil redactor": nil, "config secrets": redact.New("s3cr3t-value")} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, "http://127.0.0.1:9")
			e.exec(t, `INSERT INTO outbox (topic, payload, max_attempts) VALUES ('order.created', '{}', 1)`)
			out := &logBuffer{}
			pub := failing{"upstream refused: password=hunter2 client_secret=s3cr3t-value"}
			start(t, e.customPoller(t, pub, r, out))
			rows := e.waitStates(t, "dead")
			require.Equal(t, 1, rows[0].Attempt)
			require.NotNil(t, rows[0].LastError)
			require.Contains(t, *rows[0].LastError, "upstream refused")
			require.NotContains(t, *rows[0].LastError, "hunter2")
			require.NotContains(t, *rows[0].LastError, "s3cr3t-value")

			// The outcome is logged after its write commits, so the row
			// can be dead before its log line is written.
			require.Eventually(t, func() bool {
				logs := out.String()
				return strings.Contains(logs, "dead") && strings.Contains(logs, rows[0].ID)
			}, 30*time.Second, 5*time.Millisecond, "the dead outcome is logged with the row's id")
			logs := out.String()
			require.Contains(t, logs, "retry scheduled")
			require.Contains(t, logs, "upstream refused")
			require.NotContains(t, logs, "hunter2")
			require.NotContains(t, logs, "s3cr3t-value")
		})
	}
}
