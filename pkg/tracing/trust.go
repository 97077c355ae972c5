package tracing

import (
	"context"
	"maps"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// senderOnly are the propagation headers that QueueBox never passes on
// from a sender it does not trust, whatever the propagator: they carry
// vendor state and key-value pairs that the sender chose.
var senderOnly = []string{"traceparent", "tracestate", "baggage"}

// startOptions returns the context to start a span in and the options
// that place it, for a sender's context remote (extracted into a
// context). A trusted sender's context is the parent. An untrusted one
// chooses neither the trace id nor the sampling: the span is a new root,
// sampled by the root sampler, with a link to the sender's span when
// there is one. The returned context then holds no baggage of the
// sender.
func startOptions(ctx, remote context.Context, trusted bool) (context.Context, []trace.SpanStartOption) {
	if trusted {
		return remote, nil
	}
	opts := []trace.SpanStartOption{trace.WithNewRoot()}
	if sc := trace.SpanContextFromContext(remote); sc.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
	}
	return detach(ctx), opts
}

// dropSenderContext removes from c every spelling of the propagator's
// fields and of senderOnly.
func dropSenderContext(p propagation.TextMapPropagator, c propagation.TextMapCarrier, del func(string)) {
	names := append(append([]string(nil), p.Fields()...), senderOnly...)
	for _, key := range c.Keys() {
		for _, f := range names {
			if strings.EqualFold(key, f) {
				del(key)
				break
			}
		}
	}
}

// withoutSenderContext returns a copy of headers without the sender's
// context (dropSenderContext); headers itself is not changed.
func withoutSenderContext(p propagation.TextMapPropagator, headers map[string]string) map[string]string {
	headers = maps.Clone(headers)
	dropSenderContext(p, Carrier(headers), func(name string) { delete(headers, name) })
	return headers
}

// DropSenderHeaders removes traceparent, tracestate and baggage, in any
// spelling, from h. With tracing off the HTTP sources call it on the
// routes that do not trust their senders: no span of QueueBox's replaces
// the sender's context there, and the stored row would otherwise hand it
// to every receiver.
func DropSenderHeaders(h http.Header) {
	dropSenderContext(propagation.NewCompositeTextMapPropagator(), propagation.HeaderCarrier(h), h.Del)
}
