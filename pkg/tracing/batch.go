package tracing

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// BatchSizeKey is the attribute of a statement's span that counts its
// rows.
const BatchSizeKey = attribute.Key("messaging.batch.message_count")

// Batch starts the short internal spans of the claim loops' statements
// (claim outbox, finish outbox, relay forward): one span per statement,
// never one per row, each linked to the rows' own traces when it knows
// them. A nil *Batch starts nothing. It is safe for concurrent use.
type Batch struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// NewBatch returns the Batch of the globals of Setup, or nil when tracing
// is off.
func NewBatch() *Batch {
	if !Active() {
		return nil
	}
	return NewBatchWith(otel.GetTracerProvider(), otel.GetTextMapPropagator())
}

// NewBatchWith returns a Batch of an explicit provider, for tests.
func NewBatchWith(tp trace.TracerProvider, p propagation.TextMapPropagator) *Batch {
	return &Batch{tracer: tp.Tracer(ScopeName), prop: p}
}

// Start begins the span name of one statement over size rows; rows, when
// given, are the headers of those rows, each of which becomes a link to
// that row's trace. end records the rows the statement returned (n < 0:
// unknown) and its error, and ends the span; the caller calls it once.
func (b *Batch) Start(ctx context.Context, name string, size int, rows []map[string]string) (context.Context, func(n int, err error)) {
	if b == nil {
		return ctx, func(int, error) {}
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(BatchSizeKey.Int(size))}
	for _, h := range rows {
		if sc := trace.SpanContextFromContext(b.prop.Extract(context.Background(), Carrier(h))); sc.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	return b.start(ctx, name, opts...)
}

// StartAt is Start for a statement that began at began and whose span is
// decided only after it returned.
func (b *Batch) StartAt(ctx context.Context, name string, size int, began time.Time) (context.Context, func(n int, err error)) {
	if b == nil {
		return ctx, func(int, error) {}
	}
	return b.start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(BatchSizeKey.Int(size)), trace.WithTimestamp(began))
}

func (b *Batch) start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, func(n int, err error)) {
	ctx, span := b.tracer.Start(ctx, name, opts...)
	return ctx, func(n int, err error) {
		if n >= 0 {
			span.SetAttributes(attribute.Int("queuebox.rows", n))
		}
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}
