package tracing_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/tracing"
)

func TestLogHandlerAddsTraceIDs(t *testing.T) {
	t.Parallel()
	_, tp := newRecorder()
	var buf bytes.Buffer
	log := slog.New(tracing.NewLogHandler(slog.NewJSONHandler(&buf, nil))).With("service", "test")
	ctx, span := tp.Tracer("test").Start(context.Background(), "x")
	log.InfoContext(ctx, "traced")
	span.End()
	require.Contains(t, buf.String(), `"trace_id":"`+span.SpanContext().TraceID().String()+`"`)
	require.Contains(t, buf.String(), `"span_id":"`+span.SpanContext().SpanID().String()+`"`)

	buf.Reset()
	log.Info("untraced")
	require.NotContains(t, buf.String(), "trace_id")
}

// WithAttemptSpan hands back the send span of the publish it prepared,
// and the context unchanged when nothing was traced.
func TestWithAttemptSpan(t *testing.T) {
	t.Parallel()
	rec, tp := newRecorder()
	pub := wrap(&fakePublisher{}, tp, "http")
	ctx, attempt := tracing.WithAttemptSpan(context.Background())
	require.NoError(t, pub.Publish(ctx, queuebox.Delivery{Message: &queuebox.OutboxMessage{ID: rowID, Topic: "t"}}))
	got := trace.SpanContextFromContext(attempt())
	require.Equal(t, rec.Ended()[0].SpanContext().SpanID(), got.SpanID())

	plain := context.Background()
	_, attempt = tracing.WithAttemptSpan(plain)
	require.Equal(t, plain, attempt(), "no span was started")
}
