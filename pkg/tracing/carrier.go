package tracing

import (
	"context"
	"maps"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// Carrier is a propagation.TextMapCarrier over row headers. Get matches a
// name in any letter case, since an HTTP source stores "Traceparent" as
// net/http spells it; Set first removes every spelling of the name, so a
// row never carries two contexts.
type Carrier map[string]string

var _ propagation.TextMapCarrier = Carrier(nil)

// Get returns the value of key in any letter case, or "".
func (c Carrier) Get(key string) string {
	if v, ok := c[key]; ok {
		return v
	}
	for name, v := range c {
		if strings.EqualFold(name, key) {
			return v
		}
	}
	return ""
}

// Set replaces every spelling of key with key (lower case, as W3C writes
// it) and value.
func (c Carrier) Set(key, value string) {
	for name := range c {
		if strings.EqualFold(name, key) {
			delete(c, name)
		}
	}
	c[key] = value
}

// Keys returns the header names.
func (c Carrier) Keys() []string {
	out := make([]string, 0, len(c))
	for name := range c {
		out = append(out, name)
	}
	return out
}

// Extract returns ctx with the trace context and baggage that headers
// carry, by the global propagator. Any span already in ctx is dropped
// first: a row's trace is its own, never the claim's.
func Extract(ctx context.Context, headers map[string]string) context.Context {
	return ExtractWith(otel.GetTextMapPropagator(), ctx, headers)
}

// ExtractWith is Extract with an explicit propagator.
func ExtractWith(p propagation.TextMapPropagator, ctx context.Context, headers map[string]string) context.Context {
	return p.Extract(detach(ctx), Carrier(headers))
}

// Inject returns a copy of headers whose propagation fields hold the
// context of ctx in place of any of the same name. headers is not changed.
func Inject(p propagation.TextMapPropagator, ctx context.Context, headers map[string]string) map[string]string {
	out := maps.Clone(headers)
	if out == nil {
		out = map[string]string{}
	}
	c := Carrier(out)
	for _, f := range p.Fields() {
		for name := range c {
			if strings.EqualFold(name, f) {
				delete(c, name)
			}
		}
	}
	p.Inject(ctx, c)
	return out
}
