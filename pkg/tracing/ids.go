package tracing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// rowKey marks a context whose next root span belongs to one outbox row.
type rowKey struct{}

// withRowTrace returns ctx whose next root span takes the trace id of the
// row id, so every attempt of a row that came without a traceparent lands
// in one trace, however many processes claim it.
func withRowTrace(ctx context.Context, id trace.TraceID) context.Context {
	return context.WithValue(ctx, rowKey{}, id)
}

// RowTraceID returns the trace id of a row without a traceparent: the 16
// bytes of its UUID, or false when the id is not one.
func RowTraceID(rowID string) (trace.TraceID, bool) {
	var id trace.TraceID
	raw := strings.ReplaceAll(rowID, "-", "")
	if len(raw) != 32 {
		return id, false
	}
	if _, err := hex.Decode(id[:], []byte(raw)); err != nil || !id.IsValid() {
		return trace.TraceID{}, false
	}
	return id, true
}

// IDGenerator returns random ids, except for a root span started in a
// context of withRowTrace: that one takes the row's trace id. Span ids
// stay random: a replayed row starts again at attempt 0, so an id derived
// from the row and the attempt would repeat within the trace. It is safe
// for concurrent use.
type IDGenerator struct{}

var _ sdktrace.IDGenerator = IDGenerator{}

// NewIDGenerator returns the generator that Setup installs; tests build
// their providers with it too.
func NewIDGenerator() IDGenerator { return IDGenerator{} }

// NewIDs returns the ids of a root span.
func (IDGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if id, ok := ctx.Value(rowKey{}).(trace.TraceID); ok {
		return id, randomSpan()
	}
	var t trace.TraceID
	for !t.IsValid() {
		_, _ = rand.Read(t[:])
	}
	return t, randomSpan()
}

// NewSpanID returns a random span id.
func (IDGenerator) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return randomSpan() }

func randomSpan() trace.SpanID {
	var s trace.SpanID
	for !s.IsValid() {
		_, _ = rand.Read(s[:])
	}
	return s
}

// detach returns ctx without its span, so that the next span is a root
// unless a propagator finds a parent.
func detach(ctx context.Context) context.Context {
	return trace.ContextWithSpanContext(ctx, trace.SpanContext{})
}
