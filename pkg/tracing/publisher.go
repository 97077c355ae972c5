package tracing

import (
	"context"
	"errors"
	"strconv"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// ScopeName is the instrumentation scope of every QueueBox span.
const ScopeName = "github.com/alternayte/queuebox"

// PublisherOptions configure the spans of one destination.
type PublisherOptions struct {
	// System is messaging.system: http, rabbitmq, kafka or nats.
	System string
	// Destination is the configured destination name.
	Destination string
	// Attributes are added to every span (HTTP client attributes).
	Attributes []attribute.KeyValue
	// TracerProvider and Propagator default to the globals that Setup
	// installed. With neither set and Setup inactive, WrapPublisher
	// returns next unchanged.
	TracerProvider trace.TracerProvider
	Propagator     propagation.TextMapPropagator
}

// Publisher gives each attempt a producer span "send <destination>" and
// sends the row with a traceparent whose parent is that span. Its parent
// is the context in the row's headers; a row without one gets a root span
// per attempt, all in the trace of its id (RowTraceID), so its attempts
// are siblings there and no process has to remember a span of another. Safe for concurrent use when next is; Close closes next.
//
// Signing (webhooksig) covers the id, the timestamp and the body, never a
// header, so the order of the two wrappers does not change a signature.
type Publisher struct {
	next   queuebox.Publisher
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
	name   string
	attrs  []attribute.KeyValue
}

// WrapPublisher returns next with a span per publish, or next itself when
// tracing is off.
func WrapPublisher(next queuebox.Publisher, opts PublisherOptions) queuebox.Publisher {
	if opts.TracerProvider == nil {
		if !Active() {
			return next
		}
		opts.TracerProvider = otel.GetTracerProvider()
	}
	if opts.Propagator == nil {
		opts.Propagator = otel.GetTextMapPropagator()
	}
	attrs := append([]attribute.KeyValue{
		attribute.String("messaging.system", opts.System),
		attribute.String("messaging.destination.name", opts.Destination),
		attribute.String("messaging.operation.type", "send"),
		attribute.String("messaging.operation.name", "send"),
	}, opts.Attributes...)
	return &Publisher{next: next, tracer: opts.TracerProvider.Tracer(ScopeName), prop: opts.Propagator,
		name: "send " + opts.Destination, attrs: attrs}
}

// Publish publishes d inside the attempt's span; see queuebox.Publisher.
// d and its row are not changed.
func (p *Publisher) Publish(ctx context.Context, d queuebox.Delivery) error {
	if d.Message == nil {
		return p.next.Publish(ctx, d)
	}
	m := d.Message
	ctx, start := p.parent(ctx, m)
	start = append(start, trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(p.attrs...),
		trace.WithAttributes(attribute.String("messaging.message.id", m.MessageID()), attribute.Int("queuebox.attempt", m.Attempt),
			attribute.Int("queuebox.max_attempts", m.MaxAttempts)))
	ctx, span := p.tracer.Start(ctx, p.name, start...)
	defer span.End()
	recordAttempt(ctx, span.SpanContext())
	out := *m
	out.Headers = Inject(p.prop, ctx, m.Headers)
	d.Message = &out
	err := p.next.Publish(ctx, d)
	span.SetAttributes(attribute.String("queuebox.outcome", outcome(m, err)))
	if err != nil {
		span.SetAttributes(attribute.String("error.type", errorType(ctx, err)))
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

// parent returns the context the attempt's span starts in and the options
// that place it: a child of the row's context, or a root in the row's own
// trace.
func (p *Publisher) parent(ctx context.Context, m *queuebox.OutboxMessage) (context.Context, []trace.SpanStartOption) {
	ctx = ExtractWith(p.prop, ctx, m.Headers)
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, nil
	}
	id, ok := RowTraceID(m.MessageID())
	if !ok {
		return ctx, []trace.SpanStartOption{trace.WithNewRoot()}
	}
	return withRowTrace(ctx, id), []trace.SpanStartOption{trace.WithNewRoot()}
}

// Close closes the wrapped publisher.
func (p *Publisher) Close() error { return p.next.Close() }

// outcome names what the poller makes of the attempt, by the same rule
// (deliver's failure): sent, dead at once or on the last attempt, else
// retry.
func outcome(m *queuebox.OutboxMessage, err error) string {
	switch {
	case err == nil:
		return string(queuebox.OutcomeSent)
	case errors.Is(err, queuebox.ErrUndeliverable), m.Attempt >= m.MaxAttempts:
		return string(queuebox.OutcomeDead)
	}
	return string(queuebox.OutcomeRetry)
}

// errorType is a low-cardinality error.type.
func errorType(ctx context.Context, err error) string {
	var status interface{ HTTPStatusCode() int }
	switch {
	case errors.Is(err, queuebox.ErrUndeliverable):
		return "undeliverable"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return "canceled"
	case errors.As(err, &status) && status.HTTPStatusCode() > 0:
		return strconv.Itoa(status.HTTPStatusCode())
	}
	return "_OTHER"
}
