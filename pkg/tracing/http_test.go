package tracing_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/alternayte/queuebox/pkg/tracing"
)

func TestServerSpanRewritesTraceparent(t *testing.T) {
	t.Parallel()
	rec, tp := newRecorder()
	e := echo.New()
	server := tracing.NewServer(tracing.ServerOptions{TracerProvider: tp, Propagator: propagation.TraceContext{}})
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Request().Method != http.MethodPost {
				return next(c)
			}
			r, end := server.Start(c.Request(), c.Path())
			c.SetRequest(r)
			err := next(c)
			end(c.Response().Status)
			return err
		}
	})
	var stored string
	e.POST("/webhooks/:source", func(c echo.Context) error {
		stored = c.Request().Header.Get("traceparent")
		return c.NoContent(http.StatusAccepted)
	})
	e.GET("/health", func(c echo.Context) error { return c.NoContent(http.StatusOK) })

	req := httptest.NewRequest(http.MethodPost, "/webhooks/stripe", nil)
	req.Header.Set("traceparent", traceparent)
	e.ServeHTTP(httptest.NewRecorder(), req)
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/health", nil))

	spans := rec.Ended()
	require.Len(t, spans, 1, "only a POST gets a span")
	s := spans[0]
	require.Equal(t, "POST /webhooks/:source", s.Name())
	require.Equal(t, trace.SpanKindServer, s.SpanKind())
	require.Equal(t, senderParent, s.Parent().SpanID().String())
	require.Equal(t, "00-"+senderTrace+"-"+s.SpanContext().SpanID().String()+"-01", stored,
		"the stored headers continue the server span")
	require.Equal(t, int64(http.StatusAccepted), attrs(s)["http.response.status_code"].AsInt64())
}

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
