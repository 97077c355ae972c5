package tracing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// active is set once Setup installed an SDK provider; the wrappers read it
// when they are built, so an untraced process never wraps anything.
var active atomic.Bool

// Active reports whether Setup installed a tracer provider that records
// spans. It is safe for concurrent use.
func Active() bool { return active.Load() }

// Env reads one variable; Setup takes it so tests need not touch the
// process environment.
type Env func(key string) string

// Setup installs the global propagator and, when the OTEL_* variables ask
// for an exporter, the global tracer provider of the process named
// service (the default of OTEL_SERVICE_NAME). Console spans go to console.
// The returned shutdown flushes and stops the exporter; it is never nil and
// the caller calls it once, on exit, with a bounded context.
//
// The exporter is OTEL_TRACES_EXPORTER (otlp, console or none), and when
// that is unset, otlp if OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, otherwise none. The OTLP
// exporters read their endpoint, headers, timeout and TLS variables
// themselves; the SDK reads OTEL_TRACES_SAMPLER and its argument.
func Setup(ctx context.Context, service string, env Env, console io.Writer) (func(context.Context) error, error) {
	noop := func(context.Context) error { return nil }
	prop, err := propagatorFromEnv(env("OTEL_PROPAGATORS"))
	if err != nil {
		return noop, err
	}
	otel.SetTextMapPropagator(prop)
	kind, err := exporterKind(env)
	if err != nil || kind == "none" {
		return noop, err
	}
	exp, err := newExporter(ctx, kind, env, console)
	if err != nil {
		return noop, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.New(ctx, resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", service)), resource.WithFromEnv())
	if err != nil && res == nil {
		return noop, fmt.Errorf("tracing resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(NewIDGenerator()))
	otel.SetTracerProvider(tp)
	active.Store(true)
	return tp.Shutdown, nil
}

// OSEnv is Env over the process environment.
func OSEnv(key string) string { return os.Getenv(key) }

func exporterKind(env Env) (string, error) {
	if strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") {
		return "none", nil
	}
	kind := strings.ToLower(strings.TrimSpace(env("OTEL_TRACES_EXPORTER")))
	if kind == "" {
		if env("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
			return "none", nil
		}
		return "otlp", nil
	}
	switch kind {
	case "otlp", "console", "none":
		return kind, nil
	}
	return "", fmt.Errorf("OTEL_TRACES_EXPORTER: %q is not otlp, console or none", kind)
}

func newExporter(ctx context.Context, kind string, env Env, console io.Writer) (sdktrace.SpanExporter, error) {
	if kind == "console" {
		return stdouttrace.New(stdouttrace.WithWriter(console))
	}
	protocol := env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = env("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch protocol {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	}
	return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL: %q is not http/protobuf or grpc", protocol)
}

// propagatorFromEnv builds the propagator of OTEL_PROPAGATORS, a comma
// list; empty means tracecontext,baggage and "none" means no propagator.
func propagatorFromEnv(list string) (propagation.TextMapPropagator, error) {
	if strings.TrimSpace(list) == "" {
		list = "tracecontext,baggage"
	}
	var props []propagation.TextMapPropagator
	var errs []error
	for _, name := range strings.Split(list, ",") {
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "tracecontext":
			props = append(props, propagation.TraceContext{})
		case "baggage":
			props = append(props, propagation.Baggage{})
		case "none", "":
		default:
			errs = append(errs, fmt.Errorf("OTEL_PROPAGATORS: %q is not tracecontext, baggage or none", name))
		}
	}
	return propagation.NewCompositeTextMapPropagator(props...), errors.Join(errs...)
}
