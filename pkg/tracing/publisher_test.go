package tracing_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// fakePublisher records the rows it was given and returns err.
type fakePublisher struct {
	mu   sync.Mutex
	got  []*queuebox.OutboxMessage
	err  error
	ctxs []context.Context
}

func (f *fakePublisher) Publish(ctx context.Context, d queuebox.Delivery) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, d.Message)
	f.ctxs = append(f.ctxs, ctx)
	return f.err
}

func (f *fakePublisher) Close() error { return nil }

const (
	rowID        = "0190a6f2-7d1c-7c3e-9f00-000000000001"
	senderTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	senderParent = "00f067aa0ba902b7"
	traceparent  = "00-" + senderTrace + "-" + senderParent + "-01"
)

func newRecorder() (*tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithIDGenerator(tracing.NewIDGenerator()))
	return rec, tp
}

func wrap(next queuebox.Publisher, tp trace.TracerProvider, system string) queuebox.Publisher {
	return tracing.WrapPublisher(next, tracing.PublisherOptions{System: system, Destination: "orders",
		TracerProvider: tp, Propagator: propagation.TraceContext{}})
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

func TestPublisherSpans(t *testing.T) {
	t.Parallel()
	undeliverable := queuebox.Undeliverable("header value has a newline")
	cases := []struct {
		name    string
		system  string
		headers map[string]string
		attempt int
		err     error
		outcome string
		errType string
	}{
		{name: "delivered row continues the application's trace", system: "http",
			headers: map[string]string{"Traceparent": traceparent}, attempt: 0, outcome: "sent"},
		{name: "retried row", system: "rabbitmq", headers: map[string]string{"traceparent": traceparent},
			attempt: 2, err: errors.New("connection refused"), outcome: "retry", errType: "_OTHER"},
		{name: "dead on the last attempt", system: "nats", headers: map[string]string{"traceparent": traceparent},
			attempt: 5, err: context.DeadlineExceeded, outcome: "dead", errType: "timeout"},
		{name: "dead at once", system: "kafka", headers: map[string]string{"traceparent": traceparent},
			attempt: 0, err: undeliverable, outcome: "dead", errType: "undeliverable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec, tp := newRecorder()
			next := &fakePublisher{err: tc.err}
			m := &queuebox.OutboxMessage{ID: rowID, Headers: tc.headers, Attempt: tc.attempt, MaxAttempts: 5}
			err := wrap(next, tp, tc.system).Publish(context.Background(), queuebox.Delivery{Message: m})
			require.ErrorIs(t, err, tc.err)

			spans := rec.Ended()
			require.Len(t, spans, 1)
			s := spans[0]
			require.Equal(t, "send orders", s.Name())
			require.Equal(t, trace.SpanKindProducer, s.SpanKind())
			require.Equal(t, senderTrace, s.SpanContext().TraceID().String())
			require.Equal(t, senderParent, s.Parent().SpanID().String())
			a := attrs(s)
			require.Equal(t, tc.system, a["messaging.system"].AsString())
			require.Equal(t, "orders", a["messaging.destination.name"].AsString())
			require.Equal(t, rowID, a["messaging.message.id"].AsString())
			require.Equal(t, "send", a["messaging.operation.type"].AsString())
			require.Equal(t, int64(tc.attempt), a["queuebox.attempt"].AsInt64())
			require.Equal(t, tc.outcome, a["queuebox.outcome"].AsString())
			require.Equal(t, tc.errType, a["error.type"].AsString())

			// The publish carries the send span's context, once, and the
			// row itself is not changed.
			sent := next.got[0].Headers
			require.Equal(t, "00-"+senderTrace+"-"+s.SpanContext().SpanID().String()+"-01", sent["traceparent"])
			require.NotContains(t, sent, "Traceparent")
			require.Equal(t, tc.headers, m.Headers)
			require.Equal(t, s.SpanContext(), trace.SpanContextFromContext(next.ctxs[0]))
		})
	}
}

func TestPublisherRowWithoutTraceparent(t *testing.T) {
	t.Parallel()
	rec, tp := newRecorder()
	next := &fakePublisher{}
	p := wrap(next, tp, "http")
	// The claim's own span must not become the row's parent.
	ctx, claim := tp.Tracer("test").Start(context.Background(), "claim outbox")
	for attempt := 0; attempt <= 1; attempt++ {
		m := &queuebox.OutboxMessage{ID: rowID, Headers: map[string]string{"x-tenant": "a"}, Attempt: attempt, MaxAttempts: 5}
		require.NoError(t, p.Publish(ctx, queuebox.Delivery{Message: m}))
	}
	claim.End()

	want, ok := tracing.RowTraceID(rowID)
	require.True(t, ok)
	spans := rec.Ended()
	require.Len(t, spans, 3)
	first, second := spans[0], spans[1]
	for _, s := range []sdktrace.ReadOnlySpan{first, second} {
		require.Equal(t, want, s.SpanContext().TraceID(), "every attempt of the row is in the trace of its id")
		require.False(t, s.Parent().IsValid(), "an attempt of a row without a traceparent is a root")
	}
	require.NotEqual(t, first.SpanContext().SpanID(), second.SpanContext().SpanID())
	require.Equal(t, "a", next.got[1].Headers["x-tenant"])
	require.Contains(t, next.got[1].Headers["traceparent"], second.SpanContext().SpanID().String())
}

func TestWrapPublisherOffReturnsNext(t *testing.T) {
	t.Parallel()
	next := &fakePublisher{}
	require.Same(t, queuebox.Publisher(next), tracing.WrapPublisher(next, tracing.PublisherOptions{System: "http"}))
}
