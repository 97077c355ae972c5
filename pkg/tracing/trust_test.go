package tracing_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/alternayte/queuebox/pkg/tracing"
)

// senderHeaders are what an untrusted sender sends: a sampled context,
// vendor state and baggage.
func senderHeaders() map[string]string {
	return map[string]string{"traceparent": traceparent, "tracestate": "vendor=steer",
		"baggage": "tenant=admin", "x-tenant": "a"}
}

var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

func recorderWith(s sdktrace.Sampler) (*tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	rec := tracetest.NewSpanRecorder()
	return rec, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithSampler(s))
}

func TestUntrustedReceiverStartsARootLinkedToTheSender(t *testing.T) {
	t.Parallel()
	rec, tp := recorderWith(sdktrace.AlwaysSample())
	r := tracing.NewReceiver(tracing.ReceiverOptions{System: "kafka", Source: "orders", TracerProvider: tp, Propagator: propagator})
	in := senderHeaders()
	ctx, stored, end := r.Start(context.Background(), in)
	end("stored", nil)

	spans := rec.Ended()
	require.Len(t, spans, 1)
	s := spans[0]
	require.False(t, s.Parent().IsValid(), "the receive span is a root")
	require.NotEqual(t, senderTrace, s.SpanContext().TraceID().String(), "the sender does not choose the trace id")
	require.Len(t, s.Links(), 1)
	require.Equal(t, senderTrace, s.Links()[0].SpanContext.TraceID().String())
	require.Equal(t, senderParent, s.Links()[0].SpanContext.SpanID().String())
	require.Equal(t, s.SpanContext(), trace.SpanContextFromContext(ctx))
	require.Equal(t, "00-"+s.SpanContext().TraceID().String()+"-"+s.SpanContext().SpanID().String()+"-01", stored["traceparent"],
		"the stored row continues QueueBox's root, not the sender")
	require.NotContains(t, stored, "tracestate")
	require.NotContains(t, stored, "baggage")
	require.Equal(t, "a", stored["x-tenant"])
	require.Equal(t, senderHeaders(), in, "the received map is not changed")
}

func TestUntrustedSenderCannotForceSampling(t *testing.T) {
	t.Parallel()
	rec, tp := recorderWith(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0)))
	r := tracing.NewReceiver(tracing.ReceiverOptions{System: "nats", Source: "orders", TracerProvider: tp, Propagator: propagator})
	ctx, stored, end := r.Start(context.Background(), senderHeaders())
	end("stored", nil)
	require.Empty(t, rec.Ended(), "ratio 0 samples nothing, whatever the sender's flag")
	sc := trace.SpanContextFromContext(ctx)
	require.False(t, sc.IsSampled())
	require.NotEqual(t, senderTrace, sc.TraceID().String())
	require.Equal(t, "00-"+sc.TraceID().String()+"-"+sc.SpanID().String()+"-00", stored["traceparent"])

	srv := tracing.NewServer(tracing.ServerOptions{TracerProvider: tp, Propagator: propagator})
	req := httptest.NewRequest(http.MethodPost, "/inbox/orders", nil)
	for k, v := range senderHeaders() {
		req.Header.Set(k, v)
	}
	req, endHTTP := srv.Start(req, "/inbox/orders")
	endHTTP(http.StatusAccepted)
	require.Empty(t, rec.Ended())
	require.False(t, trace.SpanContextFromContext(req.Context()).IsSampled())
	require.NotContains(t, req.Header.Get("traceparent"), senderTrace)
}

func TestServerTrustsOnlyTheTrustedRoutes(t *testing.T) {
	t.Parallel()
	rec, tp := recorderWith(sdktrace.AlwaysSample())
	srv := tracing.NewServer(tracing.ServerOptions{TracerProvider: tp, Propagator: propagator,
		Trusted: func(route string) bool { return route == "/inbox/internal" }})
	start := func(route string) http.Header {
		req := httptest.NewRequest(http.MethodPost, route, nil)
		for k, v := range senderHeaders() {
			req.Header.Set(k, v)
		}
		req, end := srv.Start(req, route)
		end(http.StatusAccepted)
		return req.Header
	}
	open, internal := start("/inbox/stripe"), start("/inbox/internal")

	spans := rec.Ended()
	require.Len(t, spans, 2)
	require.False(t, spans[0].Parent().IsValid())
	require.NotEqual(t, senderTrace, spans[0].SpanContext().TraceID().String())
	require.Len(t, spans[0].Links(), 1)
	require.Equal(t, senderParent, spans[0].Links()[0].SpanContext.SpanID().String())
	require.Empty(t, open.Get("tracestate"))
	require.Empty(t, open.Get("baggage"))
	require.Equal(t, "a", open.Get("x-tenant"))
	require.Equal(t, "00-"+spans[0].SpanContext().TraceID().String()+"-"+spans[0].SpanContext().SpanID().String()+"-01", open.Get("traceparent"))

	require.Equal(t, senderParent, spans[1].Parent().SpanID().String(), "a trusted route continues the sender")
	require.Equal(t, senderTrace, spans[1].SpanContext().TraceID().String())
	require.Equal(t, "vendor=steer", internal.Get("tracestate"))
	require.Equal(t, "tenant=admin", internal.Get("baggage"))
}
