package tracing

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ReceiverOptions configure the receive spans of one broker source.
type ReceiverOptions struct {
	// System is messaging.system: rabbitmq, kafka or nats.
	System string
	// Source is the configured source name.
	Source string
	// TracerProvider and Propagator default to the globals of Setup. With
	// neither set and Setup inactive, NewReceiver starts no span: it
	// returns nil for a trusted source and, for any other, a Receiver that
	// only removes the sender's trace context from the stored headers.
	TracerProvider trace.TracerProvider
	Propagator     propagation.TextMapPropagator
	// Trust makes the sender's context the parent of the receive span and
	// keeps its tracestate and baggage (sources.<name>.trustTraceContext).
	// Without it the receive span starts a new trace, linked to the
	// sender's span, and the stored headers carry only QueueBox's context.
	Trust bool
}

// Receiver starts the consumer span "receive <source>" of each message a
// broker source hands to the inbox. A nil *Receiver starts nothing and
// passes the headers on, so a source holds one whether tracing is on or
// off. It is safe for concurrent use.
type Receiver struct {
	tracer trace.Tracer // nil: tracing is off, Start only drops the sender's context
	prop   propagation.TextMapPropagator
	name   string
	attrs  []attribute.KeyValue
	trust  bool
}

// NewReceiver returns the Receiver of one source. With tracing off it
// returns nil for a source that trusts its senders, whose context then
// travels unchanged, and a span-less Receiver for any other: even with no
// span of QueueBox's own, an untrusted sender's traceparent must not reach
// the receivers of the relayed rows.
func NewReceiver(opts ReceiverOptions) *Receiver {
	if opts.TracerProvider == nil {
		if !Active() {
			if opts.Trust {
				return nil
			}
			return &Receiver{prop: propagation.NewCompositeTextMapPropagator()}
		}
		opts.TracerProvider = otel.GetTracerProvider()
	}
	if opts.Propagator == nil {
		opts.Propagator = otel.GetTextMapPropagator()
	}
	return &Receiver{tracer: opts.TracerProvider.Tracer(ScopeName), prop: opts.Propagator, trust: opts.Trust,
		name: "receive " + opts.Source, attrs: []attribute.KeyValue{
			attribute.String("messaging.system", opts.System),
			attribute.String("messaging.destination.name", opts.Source),
			attribute.String("messaging.operation.type", "receive"),
		}}
}

// Start begins the span of one message whose headers may hold the
// sender's context, and returns the context and a copy of headers that
// continue the span: the inbox row stores those headers, so the relay and
// the deliveries join the trace. Unless the Receiver trusts the sender,
// the span is a new root linked to the sender's span, and the copy holds
// neither the sender's traceparent nor its tracestate and baggage. end records the decision (or the error)
// and ends the span; the caller calls it once.
func (r *Receiver) Start(ctx context.Context, headers map[string]string) (context.Context, map[string]string, func(outcome string, err error)) {
	if r == nil {
		return ctx, headers, func(string, error) {}
	}
	if r.tracer == nil {
		return ctx, withoutSenderContext(r.prop, headers), func(string, error) {}
	}
	ctx, place := startOptions(ctx, ExtractWith(r.prop, ctx, headers), r.trust)
	ctx, span := r.tracer.Start(ctx, r.name, append(place, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(r.attrs...))...)
	if !r.trust {
		headers = withoutSenderContext(r.prop, headers)
	}
	return ctx, Inject(r.prop, ctx, headers), func(outcome string, err error) {
		if outcome != "" {
			span.SetAttributes(attribute.String("queuebox.outcome", outcome))
		}
		if err != nil {
			span.SetAttributes(attribute.String("error.type", errorType(ctx, err)))
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}
