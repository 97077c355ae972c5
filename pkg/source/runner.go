package source

import (
	"context"
	"errors"
	"fmt"
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
	// ReceiveBatch stores the messages of one fetched group, in the order
	// of msgs, and returns one decision per message, in that order. An
	// error means the store of the group failed (and was logged): nothing
	// was decided and every message of the group must come again; rows of
	// the group that committed before the failure are then duplicates. The
	// Runner stores through ReceiveBatch only.
	ReceiveBatch(ctx context.Context, msgs []ingest.Message) ([]ingest.Decision, error)
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
	// next fetch (see Result.RetryIn). In a group only the first message's
	// Nak carries the backoff and the others get zero, so that the group
	// waits it once.
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
	// DrainTimeout bounds the store of the group in hand after the
	// consumer's context ended. Default 10 s.
	DrainTimeout time.Duration
	// StoreTimeout bounds the store of one group, shutdown or not. Zero:
	// no bound but the drain.
	StoreTimeout time.Duration
	// System is the broker's messaging.system (rabbitmq, kafka, nats) on
	// the receive span of each message when tracing is on.
	System string
}

// Result is what Handle or HandleBatch did with one message or group.
type Result struct {
	// Settled is true after Ack or Term of every message: none will come
	// again (unless the broker lost an answer).
	Settled bool
	// RetryIn is, after a Nak, the backoff that Nak was given; zero for a
	// settled message.
	RetryIn time.Duration
}

// Runner hands the messages of one consumer to its receive step, one
// fetched group at a time. It is not safe for concurrent use: each
// consumer loop owns one.
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
		tracer: tracing.NewReceiver(tracing.ReceiverOptions{System: opts.System, Source: opts.Receiver.Name(),
			Trust: trustsTraceContext(opts.Receiver)})}, nil
}

// trustsTraceContext reports whether rc takes the senders' trace context
// as the parent of its receive spans (an *ingest.Receiver of a source
// with trustTraceContext). A receiver that does not say is not trusted.
func trustsTraceContext(rc Receiver) bool {
	t, ok := rc.(interface{ TrustsTraceContext() bool })
	return ok && t.TrustsTraceContext()
}

// Name is the source name.
func (r *Runner) Name() string { return r.opts.Receiver.Name() }

// Handle is HandleBatch of the one message m.
func (r *Runner) Handle(ctx context.Context, m ingest.Message, a Answer) Result {
	return r.HandleBatch(ctx, []ingest.Message{m}, []Answer{a})
}

// HandleBatch stores msgs, one fetched group in the order of its queue,
// stream or partition, through one ReceiveBatch, and only then answers
// each message through the Answer of the same index: Ack for a final
// decision (Dead included: its row is stored), Term for Rejected. After a
// failed store every message of the group gets a Nak, the first with the
// backoff that doubles while the store keeps failing, the others with
// zero. Each message gets its own receive span. The store runs on after
// ctx ends, for at most DrainTimeout (and StoreTimeout bounds it); a
// Nak's backoff ends with ctx. msgs and answers have the same length, at
// least one; HandleBatch panics otherwise, a bug of the caller.
func (r *Runner) HandleBatch(ctx context.Context, msgs []ingest.Message, answers []Answer) Result {
	if len(msgs) == 0 || len(msgs) != len(answers) {
		panic(fmt.Sprintf("source: HandleBatch of %d messages and %d answers", len(msgs), len(answers)))
	}
	rctx, cancel := r.receiveContext(ctx)
	group := make([]ingest.Message, len(msgs))
	ends := make([]func(outcome string, err error), len(msgs))
	for i, m := range msgs {
		// The stored row continues the receive span (tracing.Receiver)
		// through the headers that Start returns.
		var sctx context.Context
		sctx, m.Headers, ends[i] = r.tracer.Start(rctx, m.Headers)
		// The lines logged about each message carry its own span; those
		// of the group's store carry a lone message's span, and none of
		// a group's, which shares one store.
		m.LogContext = sctx
		if len(msgs) == 1 {
			rctx = sctx
		}
		group[i] = m
	}
	ds, err := r.opts.Receiver.ReceiveBatch(rctx, group)
	cancel()
	if err == nil && len(ds) != len(msgs) {
		err = fmt.Errorf("source: %d decisions for a group of %d messages", len(ds), len(msgs))
	}
	if err != nil {
		for _, end := range ends {
			end("", err)
		}
		// The receive step logged the failure. The backoff keeps a
		// broken store from turning the redelivery into a busy loop; the
		// group waits it once.
		retryIn := r.failures.Next()
		answers[0].Nak(ctx, retryIn)
		for _, a := range answers[1:] {
			a.Nak(ctx, 0)
		}
		return Result{RetryIn: retryIn}
	}
	r.failures.Reset()
	for i, d := range ds {
		ends[i](d.Outcome.String(), nil)
		if d.Outcome == ingest.Rejected {
			answers[i].Term(d)
		} else {
			answers[i].Ack(d)
		}
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
