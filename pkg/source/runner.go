package source

import (
	"context"
	"errors"
	"time"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// Defaults that New applies to zero fields of Options.
const (
	DefaultMinBackoff   = time.Second
	DefaultMaxBackoff   = 30 * time.Second
	DefaultDrainTimeout = 10 * time.Second
)

// Receiver is the receive step of one source: *ingest.Receiver, built with
// ingest.Transport{DeadLetter: true, BrokerAttributes: true} for a broker
// source. It must be safe for concurrent use.
type Receiver interface {
	// Name is the source name.
	Name() string
	// Receive stores one message and decides what became of it. An error
	// means the store failed (and was logged): nothing was decided and the
	// message must come again.
	Receive(ctx context.Context, m ingest.Message) (ingest.Decision, error)
}

// Answer is the broker's side of one message: each broker implements it
// with its own acknowledgement. A method that the broker does not take
// (a closed connection) logs it; the broker then delivers the message
// again, and the inbox finds it a duplicate.
type Answer interface {
	// Ack settles a message whose decision is final and whose row, if
	// any, committed: the broker does not deliver it again.
	Ack(d ingest.Decision)
	// Term settles a Rejected message, which can never be stored: the
	// broker drops it (or dead-letters it) and does not deliver it again.
	Term(d ingest.Decision)
	// Nak gives back a message whose store failed, so the broker delivers
	// it again. retryIn is the backoff of the failures in a row; a broker
	// that requeues to the head of its queue waits it (until ctx ends)
	// before it answers, one that fetches in batches waits it before its
	// next fetch (see Result.RetryIn).
	Nak(ctx context.Context, retryIn time.Duration)
}

// Options configure a Runner.
type Options struct {
	// Receiver receives every message. Required.
	Receiver Receiver
	// MinBackoff and MaxBackoff bound the backoff of a message whose store
	// failed, which doubles with each failure in a row. Default 1 s and
	// 30 s.
	MinBackoff, MaxBackoff time.Duration
	// DrainTimeout bounds the store of the message in hand after the
	// consumer's context ended. Default 10 s.
	DrainTimeout time.Duration
	// StoreTimeout bounds one store, shutdown or not. Zero: no bound but
	// the drain.
	StoreTimeout time.Duration
	// System is the broker's messaging.system (rabbitmq, kafka, nats) on
	// the receive span of each message when tracing is on.
	System string
}

// Result is what Handle did with one message.
type Result struct {
	// Settled is true after Ack or Term: the message will not come again
	// (unless the broker lost that answer).
	Settled bool
	// RetryIn is, after a Nak, the backoff that Nak was given; zero for a
	// settled message.
	RetryIn time.Duration
}

// Runner hands the messages of one consumer to its receive step, one at
// a time. It is not safe for concurrent use: each consumer loop owns one.
type Runner struct {
	opts     Options
	failures backoff.Doubling
	tracer   *tracing.Receiver // nil when tracing is off
}

// New validates opts and applies the defaults.
func New(opts Options) (*Runner, error) {
	if opts.Receiver == nil {
		return nil, errors.New("source: Options.Receiver is required")
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(DefaultMaxBackoff, opts.MinBackoff)
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = DefaultDrainTimeout
	}
	return &Runner{opts: opts, failures: backoff.Doubling{Min: opts.MinBackoff, Max: opts.MaxBackoff},
		tracer: tracing.NewReceiver(tracing.ReceiverOptions{System: opts.System, Source: opts.Receiver.Name()})}, nil
}

// Name is the source name.
func (r *Runner) Name() string { return r.opts.Receiver.Name() }

// Handle stores m and answers the broker through a: Ack for a final
// decision (Dead included: its row is stored), Term for Rejected, Nak
// after a failed store. The store runs on after ctx ends, for at most
// DrainTimeout; a Nak's backoff ends with ctx.
func (r *Runner) Handle(ctx context.Context, m ingest.Message, a Answer) Result {
	rctx, cancel := r.receiveContext(ctx)
	// The stored row continues the receive span (tracing.Receiver).
	var end func(outcome string, err error)
	rctx, m.Headers, end = r.tracer.Start(rctx, m.Headers)
	d, err := r.opts.Receiver.Receive(rctx, m)
	cancel()
	end(decisionName(d, err), err)
	if err != nil {
		// Receive logged the failure. The backoff keeps a broken store
		// from turning the redelivery into a busy loop.
		retryIn := r.failures.Next()
		a.Nak(ctx, retryIn)
		return Result{RetryIn: retryIn}
	}
	r.failures.Reset()
	if d.Outcome == ingest.Rejected {
		a.Term(d)
	} else {
		a.Ack(d)
	}
	return Result{Settled: true}
}

// receiveContext is the context of one store: it ends DrainTimeout after
// ctx does, or StoreTimeout after the store began.
func (r *Runner) receiveContext(ctx context.Context) (context.Context, context.CancelFunc) {
	dctx, stop := drainContext(ctx, r.opts.DrainTimeout)
	if r.opts.StoreTimeout <= 0 {
		return dctx, stop
	}
	tctx, cancel := context.WithTimeout(dctx, r.opts.StoreTimeout)
	return tctx, func() { cancel(); stop() }
}

// decisionName is the outcome of a receive span: empty after an error.
func decisionName(d ingest.Decision, err error) string {
	if err != nil {
		return ""
	}
	return d.Outcome.String()
}
