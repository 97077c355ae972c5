package tracing

import (
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Server starts the server spans of the inbox routes. It knows no router:
// the HTTP server's middleware (pkg/run) passes it the route, so this
// package stays free of the server and the broker sources may use it.
type Server struct {
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator
	trusted func(route string) bool
}

// ServerOptions configure NewServer; zero values take the globals of Setup.
type ServerOptions struct {
	TracerProvider trace.TracerProvider
	Propagator     propagation.TextMapPropagator
	// Trusted reports whether the senders of a route are trusted to choose
	// the trace (sources.<name>.trustTraceContext). nil trusts none.
	Trusted func(route string) bool
}

// NewServer returns a Server. It is safe for concurrent use.
func NewServer(opts ServerOptions) *Server {
	if opts.TracerProvider == nil {
		opts.TracerProvider = otel.GetTracerProvider()
	}
	if opts.Propagator == nil {
		opts.Propagator = otel.GetTextMapPropagator()
	}
	if opts.Trusted == nil {
		opts.Trusted = func(string) bool { return false }
	}
	return &Server{tracer: opts.TracerProvider.Tracer(ScopeName), prop: opts.Propagator, trusted: opts.Trusted}
}

// Start begins the server span "<method> <route>" of r and rewrites the request's propagation headers
// to that span's context: an HTTP source stores the request headers in
// the inbox row, so the row, the relay and every attempt of the relayed
// rows continue this span. It returns r with the span's context; the
// caller calls end once with the response status. On a trusted route the
// span is a child of the request's traceparent. On any other the sender
// chooses neither the trace nor its sampling: the span is a new root with
// a link to the sender's span, and the request keeps no tracestate or
// baggage of the sender.
func (s *Server) Start(r *http.Request, route string) (*http.Request, func(status int)) {
	trusted := s.trusted(route)
	ctx, place := startOptions(r.Context(), s.prop.Extract(detach(r.Context()), propagation.HeaderCarrier(r.Header)), trusted)
	ctx, span := s.tracer.Start(ctx, r.Method+" "+route, append(place, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method),
			attribute.String("http.route", route), attribute.String("url.path", r.URL.Path)))...)
	for _, f := range s.prop.Fields() {
		r.Header.Del(f)
	}
	if !trusted {
		dropSenderContext(s.prop, propagation.HeaderCarrier(r.Header), r.Header.Del)
	}
	s.prop.Inject(ctx, propagation.HeaderCarrier(r.Header))
	return r.WithContext(ctx), func(status int) {
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if status >= http.StatusInternalServerError {
			span.SetStatus(codes.Error, http.StatusText(status))
		}
		span.End()
	}
}
