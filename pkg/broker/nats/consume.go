package nats

import (
	"context"
	"errors"
	"sort"
	"strings"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/alternayte/queuebox/pkg/ingest"
)

// consume fetches and stores batches until ctx ends (nil) or a fetch
// fails (its error; the caller binds again after a backoff).
func (c *Consumer) consume(ctx context.Context, cons jetstream.Consumer) error {
	for failures := 0; ctx.Err() == nil; {
		fctx, cancel := context.WithTimeout(ctx, c.fetchMax)
		batch, err := cons.Fetch(c.opts.BatchSize, jetstream.FetchContext(fctx))
		if err != nil {
			cancel()
			return err
		}
		storeFailed := false
		for msg := range batch.Messages() {
			if storeFailed || ctx.Err() != nil {
				// The store is down, or the process stops: give the
				// message back at once, untried.
				c.answer(msg, msg.Nak, "nak")
				continue
			}
			storeFailed = !c.handle(ctx, msg)
		}
		err = batch.Error()
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) &&
			!errors.Is(err, gonats.ErrTimeout) {
			return err
		}
		if !storeFailed {
			failures = 0
			continue
		}
		failures++
		if !c.wait(ctx, backoff(failures)) {
			return nil
		}
	}
	return nil
}

// handle stores one message and answers it. It returns false when the
// store failed, so the message was negatively acknowledged.
func (c *Consumer) handle(ctx context.Context, msg jetstream.Msg) bool {
	headers := receivedHeaders(msg.Headers())
	// The message in hand finishes even when the process stops: a store
	// that commits and then gets its ack beats a nak of a row that may
	// already be written. AckWait bounds it, as JetStream would.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.AckWait)
	defer cancel()
	d, err := c.opts.Receiver.Receive(rctx, ingest.Message{
		Body: msg.Data(), Headers: headers, CorrelationID: headers["x-correlation-id"],
		Broker: ingest.BrokerAttributes{MessageID: headers["nats-msg-id"]},
	})
	if err != nil {
		// Receive logged the storage failure.
		c.answer(msg, msg.Nak, "nak")
		return false
	}
	if d.Outcome == ingest.Rejected {
		c.answer(msg, msg.Term, "term")
		return true
	}
	c.ack(msg, d)
	return true
}

// ack acknowledges a message whose row committed. It does not wait for
// the server to confirm the acknowledgement: a lost one only returns the
// message after AckWait, and the inbox finds it a duplicate, so a round
// trip per message would buy nothing (a store at a time, it cost the
// source about a third of its rate). The send fails only when the
// connection is closed; the message then returns the same way.
func (c *Consumer) ack(msg jetstream.Msg, d ingest.Decision) {
	if err := msg.Ack(); err != nil {
		c.log.Warn("acknowledgement failed; the message returns after ackWait as a duplicate",
			"outcome", d.Outcome.String(), "correlation_id", d.CorrelationID, "err", c.redactor.Redact(err.Error()))
	}
}

func (c *Consumer) answer(msg jetstream.Msg, send func() error, what string) {
	if err := send(); err != nil {
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
