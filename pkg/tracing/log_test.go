package tracing_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

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
