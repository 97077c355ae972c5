package tracing_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// BenchmarkPublishTraced is the cost of the send span on one publish at
// sampling 1.0, with the batch exporter of Setup over an exporter that
// keeps nothing; tracing off costs nothing, since the publisher is then
// not wrapped.
func BenchmarkPublishTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()),
		sdktrace.WithIDGenerator(tracing.NewIDGenerator()))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	p := tracing.WrapPublisher(nopPublisher{}, tracing.PublisherOptions{System: "http", Destination: "orders",
		TracerProvider: tp, Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})})
	m := &queuebox.OutboxMessage{ID: rowID, Headers: map[string]string{"traceparent": traceparent, "x-tenant": "a"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Publish(ctx, queuebox.Delivery{Message: m})
	}
}

type nopPublisher struct{}

func (nopPublisher) Publish(context.Context, queuebox.Delivery) error { return nil }
func (nopPublisher) Close() error                                     { return nil }
