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
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// ServerOptions configure NewServer; zero values take the globals of Setup.
type ServerOptions struct {
	TracerProvider trace.TracerProvider
	Propagator     propagation.TextMapPropagator
}

// NewServer returns a Server. It is safe for concurrent use.
func NewServer(opts ServerOptions) *Server {
	if opts.TracerProvider == nil {
		opts.TracerProvider = otel.GetTracerProvider()
	}
	if opts.Propagator == nil {
		opts.Propagator = otel.GetTextMapPropagator()
	}
	return &Server{tracer: opts.TracerProvider.Tracer(ScopeName), prop: opts.Propagator}
}

// Start begins the server span "<method> <route>" of r, a child of the
// request's traceparent, and rewrites the request's propagation headers
// to that span's context: an HTTP source stores the request headers in
// the inbox row, so the row, the relay and every attempt of the relayed
// rows continue this span. It returns r with the span's context; the
// caller calls end once with the response status.
func (s *Server) Start(r *http.Request, route string) (*http.Request, func(status int)) {
	ctx := s.prop.Extract(detach(r.Context()), propagation.HeaderCarrier(r.Header))
	ctx, span := s.tracer.Start(ctx, r.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method),
			attribute.String("http.route", route), attribute.String("url.path", r.URL.Path)))
	for _, f := range s.prop.Fields() {
		r.Header.Del(f)
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
