package run

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/tracing"
)

func TestInboxSpansContinueTheSenderAndRewriteTraceparent(t *testing.T) {
	t.Parallel()
	const senderTrace, senderParent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	e := echo.New()
	e.Use(inboxSpans(tracing.NewServer(tracing.ServerOptions{TracerProvider: tp, Propagator: propagation.TraceContext{},
		Trusted: func(string) bool { return true }})))
	var stored string
	e.POST("/inbox/:source", func(c echo.Context) error {
		stored = c.Request().Header.Get("traceparent")
		return c.NoContent(http.StatusAccepted)
	})
	e.POST("/inbox/broken", func(echo.Context) error { return echo.NewHTTPError(http.StatusServiceUnavailable) })
	e.GET("/health/live", func(c echo.Context) error { return c.NoContent(http.StatusOK) })

	req := httptest.NewRequest(http.MethodPost, "/inbox/stripe", nil)
	req.Header.Set("traceparent", "00-"+senderTrace+"-"+senderParent+"-01")
	e.ServeHTTP(httptest.NewRecorder(), req)
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/health/live", nil))
	broken := httptest.NewRecorder()
	e.ServeHTTP(broken, httptest.NewRequest(http.MethodPost, "/inbox/broken", nil))
	require.Equal(t, http.StatusServiceUnavailable, broken.Code)

	spans := rec.Ended()
	require.Len(t, spans, 2, "only a POST gets a span")
	s := spans[0]
	require.Equal(t, "POST /inbox/:source", s.Name())
	require.Equal(t, trace.SpanKindServer, s.SpanKind())
	require.Equal(t, senderParent, s.Parent().SpanID().String())
	require.Equal(t, "00-"+senderTrace+"-"+s.SpanContext().SpanID().String()+"-01", stored,
		"the stored headers continue the server span")
	require.Equal(t, "POST /inbox/broken", spans[1].Name())
	require.False(t, spans[1].Parent().IsValid())
	for _, kv := range spans[1].Attributes() {
		if kv.Key == "http.response.status_code" {
			require.Equal(t, int64(http.StatusServiceUnavailable), kv.Value.AsInt64(), "the status the client got")
		}
	}
}

func TestTrustedRoutesAreTheHTTPSourcesThatTrust(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Inbox: config.Inbox{BasePath: "/inbox/"}, Sources: map[string]*config.Source{
		"internal": {Kind: config.KindHTTP, Path: "/internal/", TrustTraceContext: true},
		"stripe":   {Kind: config.KindHTTP, Path: "stripe"},
		"orders":   {Kind: config.KindKafka, TrustTraceContext: true},
	}}
	require.Equal(t, map[string]bool{"/inbox/internal": true}, trustedRoutes(cfg))
}

// TestTracingOffDropsAnUntrustedSendersContext: with tracing off no span
// rewrites the request's traceparent, so a route that does not trust its
// senders stores none of their context; a trusted route keeps it, and a
// GET is left alone.
func TestTracingOffDropsAnUntrustedSendersContext(t *testing.T) {
	t.Parallel()
	const sent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	e := echo.New()
	e.Use(dropUntrustedContext(map[string]bool{"/inbox/trusted": true}))
	stored := map[string]http.Header{}
	keep := func(c echo.Context) error {
		stored[c.Request().Method+" "+c.Path()] = c.Request().Header.Clone()
		return c.NoContent(http.StatusAccepted)
	}
	e.POST("/inbox/stripe", keep)
	e.POST("/inbox/trusted", keep)
	e.GET("/inbox/stripe", keep)
	for _, r := range []struct{ method, path string }{{http.MethodPost, "/inbox/stripe"}, {http.MethodPost, "/inbox/trusted"}, {http.MethodGet, "/inbox/stripe"}} {
		req := httptest.NewRequest(r.method, r.path, nil)
		req.Header.Set("Traceparent", sent)
		req.Header.Set("Tracestate", "vendor=steer")
		req.Header.Set("Baggage", "tenant=admin")
		req.Header.Set("X-Tenant", "a")
		e.ServeHTTP(httptest.NewRecorder(), req)
	}
	untrusted := stored["POST /inbox/stripe"]
	for _, name := range []string{"traceparent", "tracestate", "baggage"} {
		require.Empty(t, untrusted.Get(name), name)
	}
	require.Equal(t, "a", untrusted.Get("X-Tenant"))
	require.Equal(t, sent, stored["POST /inbox/trusted"].Get("traceparent"))
	require.Equal(t, sent, stored["GET /inbox/stripe"].Get("traceparent"))
}
