package tracing

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ServerOptions configure Echo; zero values take the globals of Setup.
type ServerOptions struct {
	TracerProvider trace.TracerProvider
	Propagator     propagation.TextMapPropagator
}

// Echo returns the middleware that gives each POST a server span "POST
// <route>", a child of the request's traceparent, and then rewrites the
// request's propagation headers to that span's context. An HTTP source
// stores the request headers in the inbox row, so the row, the relay and
// every attempt of the relayed rows continue this span. Other methods
// pass through untouched.
func Echo(opts ServerOptions) echo.MiddlewareFunc {
	if opts.TracerProvider == nil {
		opts.TracerProvider = otel.GetTracerProvider()
	}
	if opts.Propagator == nil {
		opts.Propagator = otel.GetTextMapPropagator()
	}
	tracer := opts.TracerProvider.Tracer(ScopeName)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.Method != http.MethodPost {
				return next(c)
			}
			route := c.Path()
			ctx := opts.Propagator.Extract(detach(r.Context()), propagation.HeaderCarrier(r.Header))
			ctx, span := tracer.Start(ctx, r.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(attribute.String("http.request.method", r.Method),
					attribute.String("http.route", route), attribute.String("url.path", r.URL.Path)))
			defer span.End()
			for _, f := range opts.Propagator.Fields() {
				r.Header.Del(f)
			}
			opts.Propagator.Inject(ctx, propagation.HeaderCarrier(r.Header))
			c.SetRequest(r.WithContext(ctx))
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			status := c.Response().Status
			span.SetAttributes(attribute.Int("http.response.status_code", status))
			if status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(status))
			}
			return nil
		}
	}
}
