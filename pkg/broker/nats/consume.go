package nats

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/source"
)

// consume fetches batches and stores each in groups until ctx ends (nil)
// or a fetch fails (its error; the caller binds again after a backoff).
// A group is the messages of the fetch that have arrived (at most
// BatchSize): the first is waited for, the rest are taken as they are, so
// a lone message is stored at once and the next group gathers while one
// is stored.
func (c *Consumer) consume(ctx context.Context, cons jetstream.Consumer) error {
	for ctx.Err() == nil {
		fctx, cancel := context.WithTimeout(ctx, c.fetchMax)
		batch, err := cons.Fetch(c.opts.BatchSize, jetstream.FetchContext(fctx))
		if err != nil {
			cancel()
			return err
		}
		var retryIn time.Duration
		msgs := batch.Messages()
		for msg := range msgs {
			group, open := source.Gather(msg, msgs, c.opts.BatchSize)
			if retryIn > 0 || ctx.Err() != nil {
				// The store is down, or the process stops: give the
				// messages back at once, untried.
				for _, m := range group {
					c.answered(m.Nak(), "nak")
				}
			} else {
				retryIn = c.handle(ctx, group).RetryIn
			}
			if !open {
				break
			}
		}
		err = batch.Error()
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) &&
			!errors.Is(err, gonats.ErrTimeout) {
			return err
		}
		if retryIn > 0 && !source.Wait(ctx, retryIn, c.reconnect) {
			return nil
		}
	}
	return nil
}

// handle stores one group and answers each of its messages.
func (c *Consumer) handle(ctx context.Context, group []jetstream.Msg) source.Result {
	msgs := make([]ingest.Message, len(group))
	answers := make([]source.Answer, len(group))
	for i, msg := range group {
		headers := receivedHeaders(msg.Headers())
		msgs[i] = ingest.Message{Body: msg.Data(), Headers: headers, CorrelationID: headers["x-correlation-id"],
			Broker: ingest.BrokerAttributes{MessageID: headers["nats-msg-id"]}}
		answers[i] = answer{c: c, msg: msg}
	}
	return c.runner.HandleBatch(ctx, msgs, answers)
}

// answer is the source.Answer of one message: Ack, Term, and a Nak at
// once, after which JetStream returns the message; the consumer waits
// the backoff before its next fetch instead.
type answer struct {
	c   *Consumer
	msg jetstream.Msg
}

// Ack acknowledges a message whose row committed. It does not wait for
// the server to confirm the acknowledgement: a lost one only returns the
// message after AckWait, and the inbox finds it a duplicate, so a round
// trip per message would buy nothing (a store at a time, it cost the
// source about a third of its rate). The send fails only when the
// connection is closed; the message then returns the same way.
func (a answer) Ack(d ingest.Decision) {
	if err := a.msg.Ack(); err != nil {
		a.c.log.Warn("acknowledgement failed; the message returns after ackWait as a duplicate",
			"outcome", d.Outcome.String(), "correlation_id", d.CorrelationID, "err", a.c.redactor.Redact(err.Error()))
	}
}

func (a answer) Term(ingest.Decision) { a.c.answered(a.msg.Term(), "term") }

func (a answer) Nak(context.Context, time.Duration) { a.c.answered(a.msg.Nak(), "nak") }

func (c *Consumer) answered(err error, what string) {
	if err != nil {
		c.log.Warn("negative acknowledgement failed; the message returns after ackWait",
			"answer", what, "err", c.redactor.Redact(err.Error()))
	}
}

// receivedHeaders returns the message headers one value per lower-case
// name, as ingest.Message wants them. A name with several values keeps its
// last value (28_Inbox_table); names that differ in letter case only are
// taken in sorted order, so the result does not depend on map order.
func receivedHeaders(h gonats.Header) map[string]string {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make(map[string]string, len(h))
	for _, name := range names {
		if values := h[name]; len(values) > 0 {
			out[strings.ToLower(name)] = values[len(values)-1]
		}
	}
	return out
}
