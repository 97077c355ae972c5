package queuebox

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Options configures an InboxWorker. The zero value of every field but
// Source takes its default.
type Options struct {
	// Source is the consumption: pull source whose rows the worker takes.
	// Required.
	Source string
	// BatchSize is the largest number of rows in one claim: 10 by
	// default, at most 500 (the claim reads at most 500 candidates).
	BatchSize int
	// LeaseMS is the lease duration in milliseconds: 30000 by default, at
	// least 100. The worker renews each lease every third of it.
	LeaseMS int
	// MaxConcurrency is the largest number of handlers at one time: 1 by
	// default. The rows of one claim belong to different aggregates.
	MaxConcurrency int
	// PollInterval is the wait after a claim that returned nothing: 1
	// second by default. A finished handler ends the wait early.
	PollInterval time.Duration
	// ShutdownGrace is how long a stop waits for running handlers before
	// it cancels them: 30 seconds by default.
	ShutdownGrace time.Duration
	// Dialect is the database: DialectPostgreSQL by default.
	Dialect Dialect
	// Schema names a mapped table or mapped columns; nil means
	// DefaultSchema.
	Schema *Schema
	// RetryPolicy decides what a failed handler does to its row: nil means
	// NewDefaultRetryPolicy(5, time.Second, 5*time.Minute, 0.2).
	RetryPolicy RetryPolicy
	// Logger receives redacted log lines; nil prints nothing.
	Logger Logger
	// TraceContext, when set, gives the handler the trace of its message:
	// it is called before each handler with the row's stored W3C
	// traceparent and tracestate headers (in any letter case; tracestate
	// may be empty) and returns the handler's context. A row without a
	// traceparent does not call it. With OpenTelemetry, extract with the
	// propagator into ctx and start the handler's span there; the client
	// itself imports no tracing library.
	TraceContext func(ctx context.Context, traceparent, tracestate string) context.Context
}

// Bounds of the options.
const (
	maxBatchSize = 500
	minLeaseMS   = 100
	maxSourceLen = 255
)

// withDefaults fills the zero fields and returns every setting that
// cannot work, joined.
func (o Options) withDefaults() (Options, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.Source == "" {
		bad("Options.Source is required")
	} else if len(o.Source) > maxSourceLen {
		bad("Options.Source is %d bytes; the inbox source column holds at most %d", len(o.Source), maxSourceLen)
	}
	switch {
	case o.BatchSize == 0:
		o.BatchSize = 10
	case o.BatchSize < 0 || o.BatchSize > maxBatchSize:
		bad("Options.BatchSize %d is outside 1..%d", o.BatchSize, maxBatchSize)
	}
	switch {
	case o.LeaseMS == 0:
		o.LeaseMS = 30_000
	case o.LeaseMS < minLeaseMS:
		bad("Options.LeaseMS %d is below %d: the renewal every third of the lease could not keep it", o.LeaseMS, minLeaseMS)
	}
	switch {
	case o.MaxConcurrency == 0:
		o.MaxConcurrency = 1
	case o.MaxConcurrency < 0:
		bad("Options.MaxConcurrency %d is negative", o.MaxConcurrency)
	}
	switch {
	case o.PollInterval == 0:
		o.PollInterval = time.Second
	case o.PollInterval < 0:
		bad("Options.PollInterval %v is negative", o.PollInterval)
	}
	switch {
	case o.ShutdownGrace == 0:
		o.ShutdownGrace = 30 * time.Second
	case o.ShutdownGrace < 0:
		bad("Options.ShutdownGrace %v is negative", o.ShutdownGrace)
	}
	switch o.Dialect {
	case "":
		o.Dialect = DialectPostgreSQL
	case DialectPostgreSQL, DialectSQLServer:
	default:
		bad("Options.Dialect %q is neither DialectPostgreSQL nor DialectSQLServer", o.Dialect)
	}
	if o.Schema == nil {
		s := DefaultSchema()
		o.Schema = &s
	} else {
		s := *o.Schema // the worker keeps its own copy
		errs = append(errs, s.validate()...)
		o.Schema = &s
	}
	if o.RetryPolicy == nil {
		o.RetryPolicy = NewDefaultRetryPolicy(defaultMaxAttempts, defaultBaseDelay, defaultMaxDelay, defaultJitter)
	}
	if o.Logger == nil {
		o.Logger = noLogger{}
	}
	return o, errors.Join(errs...)
}

// candLimit is the claim's bound on candidates, as the contract computes
// it: LEAST(GREATEST(3 * batch, 50), 500).
func candLimit(batch int) int { return min(max(3*batch, 50), 500) }
