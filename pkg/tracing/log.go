package tracing

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// LogHandler adds trace_id and span_id to every record logged with a
// context that holds a valid span context, and passes every record to the
// handler it wraps. It is as safe for concurrent use as that handler.
type LogHandler struct{ next slog.Handler }

var _ slog.Handler = LogHandler{}

// NewLogHandler wraps next.
func NewLogHandler(next slog.Handler) LogHandler { return LogHandler{next: next} }

// Enabled reports what the wrapped handler reports.
func (h LogHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle adds the trace ids of ctx, when there are any, and hands r on.
func (h LogHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs wraps the wrapped handler's WithAttrs.
func (h LogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return LogHandler{next: h.next.WithAttrs(attrs)}
}

// WithGroup wraps the wrapped handler's WithGroup.
func (h LogHandler) WithGroup(name string) slog.Handler {
	return LogHandler{next: h.next.WithGroup(name)}
}

// attemptKey holds where Publisher leaves the span context of an attempt.
type attemptKey struct{}

// WithAttemptSpan prepares ctx for one publish through a Publisher. The
// function it returns, called after the publish, gives ctx with the span
// context of that attempt's send span, so the caller's log lines about
// the attempt (a failure, a retry, a dead row) carry its trace_id and
// span_id through LogHandler. It gives ctx unchanged when no span was
// started (tracing is off). The function must not run before the publish
// returned.
func WithAttemptSpan(ctx context.Context) (context.Context, func() context.Context) {
	sc := new(trace.SpanContext)
	return context.WithValue(ctx, attemptKey{}, sc), func() context.Context {
		if !sc.IsValid() {
			return ctx
		}
		return trace.ContextWithSpanContext(ctx, *sc)
	}
}

// recordAttempt leaves the span context of the attempt where
// WithAttemptSpan asks for it.
func recordAttempt(ctx context.Context, sc trace.SpanContext) {
	if dst, ok := ctx.Value(attemptKey{}).(*trace.SpanContext); ok {
		*dst = sc
	}
}
