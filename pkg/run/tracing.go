package run

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// traceInbox gives every POST of e (the inbox routes; on a shared router
// also the admin actions) a server span when tracing is on; see
// tracing.Server. Other methods pass through: health and metrics scrapes
// would only add noise. With tracing off a POST to a route that does not
// trust its senders loses their trace context instead, so that the sender
// does not choose the traceparent the receivers of its rows get.
func traceInbox(e *echo.Echo, cfg *config.Config) {
	trusted := trustedRoutes(cfg)
	if !tracing.Active() {
		e.Use(dropUntrustedContext(trusted))
		return
	}
	e.Use(inboxSpans(tracing.NewServer(tracing.ServerOptions{Trusted: func(route string) bool { return trusted[route] }})))
}

// trustedRoutes returns the inbox routes of the http sources that set
// trustTraceContext, joined as the HTTP source joins them
// (webhook.Route). Every other POST starts a new trace linked to the
// sender's.
func trustedRoutes(cfg *config.Config) map[string]bool {
	out := map[string]bool{}
	if cfg == nil {
		return out
	}
	for _, src := range cfg.Sources {
		if src == nil || src.Kind != config.KindHTTP || !src.TrustTraceContext {
			continue
		}
		route := strings.TrimRight(cfg.Inbox.BasePath, "/") + "/" + strings.Trim(strings.TrimSpace(src.Path), "/")
		if len(route) > 1 {
			route = strings.TrimRight(route, "/")
		}
		out[route] = true
	}
	return out
}

// dropUntrustedContext is the middleware of traceInbox with tracing off.
func dropUntrustedContext(trusted map[string]bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Request().Method == http.MethodPost && !trusted[c.Path()] {
				tracing.DropSenderHeaders(c.Request().Header)
			}
			return next(c)
		}
	}
}

// inboxSpans is the middleware of traceInbox.
func inboxSpans(server *tracing.Server) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Request().Method != http.MethodPost {
				return next(c)
			}
			r, end := server.Start(c.Request(), c.Path())
			c.SetRequest(r)
			if err := next(c); err != nil {
				// Let the router write the error now, so the span sees
				// the status that the client gets.
				c.Error(err)
			}
			end(c.Response().Status)
			return nil
		}
	}
}

// tracingFlushTimeout bounds the export of the last spans on exit.
const tracingFlushTimeout = 5 * time.Second

// startTracing installs the tracer provider that the OTEL_* variables ask
// for (none when they ask for nothing) and returns its bounded shutdown,
// which logs a failed flush and never fails the exit.
func startTracing(ctx context.Context, name string, console io.Writer) (func(*slog.Logger), error) {
	shutdown, err := tracing.Setup(ctx, name, tracing.OSEnv, console)
	if err != nil {
		return nil, err
	}
	return func(log *slog.Logger) {
		flushCtx, cancel := context.WithTimeout(context.Background(), tracingFlushTimeout)
		defer cancel()
		if err := shutdown(flushCtx); err != nil {
			log.Warn("tracing: the last spans were not exported", "err", err)
		}
	}, nil
}
