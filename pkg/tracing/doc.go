// Package tracing is QueueBox's OpenTelemetry tracing: the provider built
// from the standard OTEL_* variables (Setup), the W3C context carried in
// row headers (Carrier, Extract, Inject), the producer span of every
// publish attempt (WrapPublisher), the server span of an inbox request
// (Echo) and the trace ids on log lines (LogHandler).
//
// With no OTEL_* variable set, Setup installs nothing: no exporter, no
// connection, and the wrappers return what they wrap, so the untraced
// path costs one boolean check when a publisher is built.
package tracing
