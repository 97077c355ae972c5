package tracing_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/alternayte/queuebox/pkg/tracing"
)

func TestReceiverSpanContinuesTheMessage(t *testing.T) {
	t.Parallel()
	rec, tp := newRecorder()
	r := tracing.NewReceiver(tracing.ReceiverOptions{System: "rabbitmq", Source: "orders",
		TracerProvider: tp, Propagator: propagation.TraceContext{}, Trust: true})
	in := map[string]string{"traceparent": traceparent, "x-tenant": "a"}
	ctx, stored, end := r.Start(context.Background(), in)
	end("stored", nil)
	_, _, endFailed := r.Start(context.Background(), map[string]string{})
	endFailed("", errors.New("store down"))

	spans := rec.Ended()
	require.Len(t, spans, 2)
	s := spans[0]
	require.Equal(t, "receive orders", s.Name())
	require.Equal(t, trace.SpanKindConsumer, s.SpanKind())
	require.Equal(t, senderParent, s.Parent().SpanID().String())
	a := attrs(s)
	require.Equal(t, "rabbitmq", a["messaging.system"].AsString())
	require.Equal(t, "receive", a["messaging.operation.type"].AsString())
	require.Equal(t, "stored", a["queuebox.outcome"].AsString())
	require.Equal(t, s.SpanContext(), trace.SpanContextFromContext(ctx))
	require.Equal(t, "00-"+senderTrace+"-"+s.SpanContext().SpanID().String()+"-01", stored["traceparent"],
		"the stored row continues the receive span")
	require.Equal(t, "a", stored["x-tenant"])
	require.Equal(t, traceparent, in["traceparent"], "the received map is not changed")
	require.False(t, spans[1].Parent().IsValid(), "a message without a context starts a trace")
	require.Equal(t, "_OTHER", attrs(spans[1])["error.type"].AsString())
}

func TestNilReceiverPassesThrough(t *testing.T) {
	t.Parallel()
	var r *tracing.Receiver
	in := map[string]string{"traceparent": traceparent}
	ctx, out, end := r.Start(context.Background(), in)
	end("stored", nil)
	require.Equal(t, in, out)
	require.False(t, trace.SpanContextFromContext(ctx).IsValid())
}

// TestReceiverWithTracingOffDropsAnUntrustedSendersContext: with tracing
// off (no provider and Setup inactive) a source that does not trust its
// senders still stores none of their context, and a trusted one passes it
// through unchanged.
func TestReceiverWithTracingOffDropsAnUntrustedSendersContext(t *testing.T) {
	t.Parallel()
	require.False(t, tracing.Active(), "this test needs tracing off")
	r := tracing.NewReceiver(tracing.ReceiverOptions{System: "rabbitmq", Source: "orders"})
	require.NotNil(t, r)
	in := map[string]string{"Traceparent": traceparent, "tracestate": "vendor=steer", "BAGGAGE": "tenant=admin", "x-tenant": "a"}
	ctx, out, end := r.Start(context.Background(), in)
	end("stored", nil)
	require.Equal(t, map[string]string{"x-tenant": "a"}, out)
	require.Len(t, in, 4, "the received map is not changed")
	require.False(t, trace.SpanContextFromContext(ctx).IsValid(), "no span with tracing off")

	require.Nil(t, tracing.NewReceiver(tracing.ReceiverOptions{System: "rabbitmq", Source: "orders", Trust: true}),
		"a trusted source with tracing off passes its senders' context on")
}
