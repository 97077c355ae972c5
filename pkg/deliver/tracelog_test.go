package deliver_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// The log line of a failed attempt carries the trace id of the row's
// traceparent and the span id of that attempt's send span, as every line
// about the row written after its publish does.
func TestAFailedAttemptIsLoggedWithItsTraceIDs(t *testing.T) {
	t.Parallel()
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	e := newEnv(t, "http://127.0.0.1:9")
	e.exec(t, `INSERT INTO outbox (topic, payload, headers, max_attempts) VALUES ('order.created', '{}', $1, 3)`,
		`{"traceparent": "00-`+trace+`-00f067aa0ba902b7-01"}`)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	pub := tracing.WrapPublisher(failing{"connection refused"}, tracing.PublisherOptions{System: "http",
		Destination: "webhook-api", TracerProvider: tp, Propagator: propagation.TraceContext{}})
	out := &logBuffer{}
	log := slog.New(tracing.NewLogHandler(slog.NewJSONHandler(out, nil)))
	p := e.build(t, deliver.Options{Publishers: map[string]queuebox.Publisher{"webhook-api": pub},
		Redactor: redact.New(), Metrics: deliver.NewMetrics(prometheus.NewRegistry()), Logger: log})
	start(t, p)

	var line map[string]any
	require.Eventually(t, func() bool {
		for l := range strings.SplitSeq(out.String(), "\n") {
			if strings.Contains(l, "retry scheduled") {
				require.NoError(t, json.Unmarshal([]byte(l), &line))
				return true
			}
		}
		return false
	}, 30*time.Second, 10*time.Millisecond, "the failed attempt is logged")
	spans := rec.Ended()
	require.NotEmpty(t, spans)
	send := spans[0].SpanContext()
	require.Equal(t, trace, send.TraceID().String())
	require.Equal(t, trace, line["trace_id"])
	require.Equal(t, send.SpanID().String(), line["span_id"], "the span of the attempt, not the sender's")
}
