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

// giveBackTimeout bounds the negative acknowledgements that follow a
// stop or a failed store, each of which waits for the server's
// confirmation.
const giveBackTimeout = 5 * time.Second

// consume reads the durable consumer and stores its messages in groups
// until ctx ends (nil) or the pull fails (its error; the caller binds
// again after a backoff). After a failed store it waits the store's
// backoff before it pulls again.
func (c *Consumer) consume(ctx context.Context, cons jetstream.Consumer) error {
	for ctx.Err() == nil {
		retryIn, err := c.pull(ctx, cons)
		if err != nil {
			return err
		}
		if retryIn > 0 && !source.Wait(ctx, retryIn, c.reconnect) {
			return nil
		}
	}
	return nil
}

// pull stores groups of the messages that one pull subscription brings
// until ctx ends or a store fails (then it returns the retry delay). A
// group is the messages that have arrived (at most BatchSize): the first
// is waited for, the rest are taken as they are, so a lone message is
// stored at once and the next group gathers while one is stored.
//
// Either end drains the subscription: the server stops sending, and what
// it had sent, in flight or buffered, is still read. Only then are the
// messages not stored (those of a failed group, then the rest) given back,
// in stream order, each with a negative acknowledgement the server
// confirms, so they are the first the next pull receives. Cancelling the
// pull request instead would drop what is in flight, which JetStream
// returns only after AckWait, behind the messages that follow it; and a
// message given back while the pull is still open goes straight back to
// it.
func (c *Consumer) pull(ctx context.Context, cons jetstream.Consumer) (time.Duration, error) {
	it, err := cons.Messages(jetstream.PullMaxMessages(c.opts.BatchSize))
	if err != nil {
		return 0, err
	}
	msgs, pumped := pump(it, c.opts.BatchSize)
	stopDrain := context.AfterFunc(ctx, it.Drain)
	defer stopDrain()
	var held []jetstream.Msg
	var retryIn time.Duration
	for msg := range msgs {
		group, _ := source.Gather(msg, msgs, c.opts.BatchSize)
		if retryIn > 0 || ctx.Err() != nil {
			held = append(held, group...)
			continue
		}
		if retryIn = c.handle(ctx, group, &held).RetryIn; retryIn > 0 {
			it.Drain()
		}
	}
	err = <-pumped
	c.giveBack(cons, held)
	if retryIn > 0 || ctx.Err() != nil ||
		errors.Is(err, jetstream.ErrMsgIteratorClosed) && !errors.Is(err, jetstream.ErrConnectionClosed) {
		return retryIn, nil
	}
	return 0, err
}

// pump sends the messages of it on the first channel until Next fails,
// then closes it and sends that error on the second. The first channel
// holds up to size messages, so that a group gathers what has arrived
// while the one before it was stored: unbuffered, it held one message at a
// time, groups were of one or two, and the source stored each message in
// a transaction of its own (a fifth of its rate).
func pump(it jetstream.MessagesContext, size int) (<-chan jetstream.Msg, <-chan error) {
	msgs, done := make(chan jetstream.Msg, size), make(chan error, 1)
	go func() {
		defer close(msgs)
		for {
			msg, err := it.Next()
			if err != nil {
				done <- err
				return
			}
			msgs <- msg
		}
	}()
	return msgs, done
}

// giveBack negatively acknowledges each message and waits for the
// server to confirm it, so that whichever consumer pulls next is handed
// these messages before any that follow them in the stream.
//
// It asks for the consumer's info first. The server forgets a drained
// pull request only when it next reviews its waiting requests, which an
// info request does; until then a message given back can be sent to the
// request whose subscriber is gone, and returns only after AckWait
// (measured against nats-server 2.9: the first message given back right
// after the drain was lost that way in every run, and in none after the
// info request).
func (c *Consumer) giveBack(cons jetstream.Consumer, msgs []jetstream.Msg) {
	if len(msgs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), giveBackTimeout)
	defer cancel()
	if _, err := cons.Info(ctx); err != nil {
		c.log.Warn("consumer info before giving messages back failed", "err", c.redactor.Redact(err.Error()))
	}
	nc := c.nc.Load()
	for _, m := range msgs {
		_, err := nc.RequestWithContext(ctx, m.Reply(), []byte("-NAK"))
		c.answered(err, "nak")
	}
}

// handle stores one group and answers each of its messages; the
// messages of a failed store go to held.
func (c *Consumer) handle(ctx context.Context, group []jetstream.Msg, held *[]jetstream.Msg) source.Result {
	msgs := make([]ingest.Message, len(group))
	answers := make([]source.Answer, len(group))
	for i, msg := range group {
		headers := receivedHeaders(msg.Headers())
		msgs[i] = ingest.Message{Body: msg.Data(), Headers: headers, CorrelationID: headers["x-correlation-id"],
			Broker: ingest.BrokerAttributes{MessageID: headers["nats-msg-id"]}}
		answers[i] = answer{c: c, msg: msg, held: held}
	}
	return c.runner.HandleBatch(ctx, msgs, answers)
}

// answer is the source.Answer of one message: Ack, Term, and a Nak that
// holds the message until the pull has drained (see pull); JetStream then
// returns it at once, and the consumer waits the backoff before its next
// pull instead.
type answer struct {
	c    *Consumer
	msg  jetstream.Msg
	held *[]jetstream.Msg
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

func (a answer) Nak(context.Context, time.Duration) { *a.held = append(*a.held, a.msg) }

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
