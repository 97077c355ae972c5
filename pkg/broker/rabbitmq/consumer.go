package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/source"
)

// Defaults of ConsumerOptions.
const (
	DefaultMinBackoff   = source.DefaultMinBackoff
	DefaultMaxBackoff   = source.DefaultMaxBackoff
	DefaultDrainTimeout = source.DefaultDrainTimeout
	DefaultDialTimeout  = 10 * time.Second
	DefaultPrefetch     = 10
)

// correlationHeader is X-Correlation-Id under the lower-case name that
// received headers use.
const correlationHeader = "x-correlation-id"

// Receiver stores one received message; *ingest.Receiver built with
// ingest.Transport{DeadLetter: true, BrokerAttributes: true} is the one a
// rabbitmq source uses. Its Name is the source name.
type Receiver = source.Receiver

// ConsumerOptions configure the consumer of one rabbitmq source. They
// mirror the source block of the configuration, so this package needs no
// configuration package.
type ConsumerOptions struct {
	// URL is the AMQP URI of the broker (connectionUrl). It may hold a
	// password, which no error or log line shows. Required.
	URL string
	// Queue is the queue to consume (queueName). Required.
	Queue string
	// Prefetch is the most unacknowledged deliveries the broker sends
	// ahead (prefetchCount), and so the largest group stored in one
	// ReceiveBatch. Default 10.
	Prefetch int
	// DeclareQueue declares the queue (durable) when it does not exist;
	// without it a missing queue stops the source.
	DeclareQueue bool
	// Receiver stores each message; its Name is the source name. Required.
	Receiver Receiver
	// Logger receives connection events and failed acknowledgements. May
	// be nil.
	Logger *slog.Logger
	// Redactor knows the secrets of the configuration; the consumer adds
	// the password of URL. May be nil.
	Redactor *redact.Redactor
	// MinBackoff and MaxBackoff bound the wait before a reconnect, which
	// doubles after each failed connection, and the wait before a message
	// whose store failed is requeued, which doubles after each failure in
	// a row. Defaults 1 s and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// DrainTimeout bounds the store of the group in hand after Run's ctx
	// ends. Default 10 s.
	DrainTimeout time.Duration
	// DialTimeout bounds the TCP connect and the AMQP handshake. Default
	// 10 s.
	DialTimeout time.Duration
}

// MissingQueueError is why a source whose queue does not exist and that
// may not declare it is down: Check returns it until the queue appears.
type MissingQueueError struct {
	Source, Queue string
}

func (e *MissingQueueError) Error() string {
	return fmt.Sprintf("sources.%s.queueName: the queue %q does not exist; create it, or set sources.%s.declareQueue to true",
		e.Source, e.Queue, e.Source)
}

// Consumer is the run.Component of one rabbitmq source. Run consumes the
// queue with a prefetch of Prefetch and hands the deliveries to the
// Receiver through a source.Runner in groups, in queue order: a group is
// the deliveries of the prefetch window that the client already holds
// (at most Prefetch; one when only one came), stored in one ReceiveBatch.
// It acknowledges a delivery only after the group's store returned a
// final decision for it (stored, duplicate, filtered or dead: the inbox
// row committed, or none is due), rejects a Rejected one without requeue,
// and requeues (nack) every delivery of a group whose store failed, after
// one backoff. A message is therefore acknowledged only once the inbox
// holds it: a crash or a lost connection returns every unacknowledged
// message to the queue, and the inbox finds a redelivery a duplicate.
//
// The consumer never declares its queue unless DeclareQueue is true. A
// missing queue, like any other connection failure, is retried with a
// backoff of MinBackoff doubling to MaxBackoff; Check reports the source
// down meanwhile, a missing queue as a *MissingQueueError that names the
// queue and the declareQueue setting. A Consumer is safe for
// concurrent use of Check while Run runs; Run runs once.
type Consumer struct {
	source   string
	opts     ConsumerOptions
	runner   *source.Runner
	redactor *redact.Redactor
	log      *slog.Logger

	state atomic.Pointer[error] // nil: up; else why it is down
}

// NewConsumer validates opts and applies the defaults. It does not
// connect; Run does.
func NewConsumer(opts ConsumerOptions) (*Consumer, error) {
	if opts.Receiver == nil {
		return nil, errors.New("rabbitmq source: a Receiver is required")
	}
	name := opts.Receiver.Name()
	if err := CheckURL(opts.URL); err != nil {
		return nil, fmt.Errorf("sources.%s.connectionUrl: %w", name, err)
	}
	if opts.Queue == "" {
		return nil, fmt.Errorf("sources.%s.queueName: required", name)
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(DefaultMaxBackoff, opts.MinBackoff)
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	if opts.Prefetch <= 0 {
		opts.Prefetch = DefaultPrefetch
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	runner, err := source.New(source.Options{Receiver: opts.Receiver, System: "rabbitmq", MinBackoff: opts.MinBackoff,
		MaxBackoff: opts.MaxBackoff, DrainTimeout: opts.DrainTimeout})
	if err != nil {
		return nil, fmt.Errorf("sources.%s: %w", name, err)
	}
	c := &Consumer{source: name, opts: opts, runner: runner, redactor: redactorFor(opts.Redactor, opts.URL),
		log: opts.Logger.With("source", name, "queue", opts.Queue)}
	c.setDown(errors.New("not connected yet"))
	return c, nil
}

// Name is the health component and component name: rabbitmq.<source>.
func (c *Consumer) Name() string { return "rabbitmq." + c.source }

// Check reports nil while the consumer is connected and consuming.
func (c *Consumer) Check(context.Context) error {
	if err := c.state.Load(); err != nil {
		return *err
	}
	return nil
}

func (c *Consumer) setDown(err error) {
	err = errors.New(c.redactor.Redact(err.Error()))
	c.state.Store(&err)
}

// Run consumes until ctx ends, and then returns nil, after the group in
// hand was stored or DrainTimeout passed, and the connection closed, which
// requeues the prefetched messages. It returns no other way: a missing
// queue stops only this source, which keeps trying.
func (c *Consumer) Run(ctx context.Context) error {
	return source.Reconnect{
		Session: c.session, MinBackoff: c.opts.MinBackoff, MaxBackoff: c.opts.MaxBackoff,
		Failed: func(err error, retryIn time.Duration) error {
			c.setDown(err)
			// A missing queue stops this source, not the process: the
			// other sources keep running, and the queue may be created
			// while QueueBox runs. The error names the queue and the
			// setting that would declare it.
			if missing := (*MissingQueueError)(nil); errors.As(err, &missing) {
				c.log.Error("rabbitmq source stopped: its queue does not exist; retrying", "err", err.Error(),
					"setting", "sources."+c.source+".declareQueue", "backoff", retryIn.String())
				return nil
			}
			c.log.Warn("rabbitmq source disconnected; reconnecting", "err", c.redactor.Redact(err.Error()),
				"backoff", retryIn.String())
			return nil
		},
	}.Run(ctx)
}

// session runs one connection: it returns when ctx ends or the connection
// fails, and says whether the consumer got to consume.
func (c *Consumer) session(ctx context.Context) (bool, error) {
	l, err := c.dial(ctx)
	if err != nil {
		return false, fmt.Errorf("connect to the broker: %w", err)
	}
	defer l.close(closeWait)
	// A setup call that the broker never answers ends when ctx does.
	stop := context.AfterFunc(ctx, func() { l.close(0) })
	ch, deliveries, err := c.subscribe(l)
	if !stop() {
		return false, ctx.Err()
	}
	if err != nil {
		return false, err
	}
	closes := ch.NotifyClose(make(chan *amqp.Error, 1))
	held, stopHolding := hold(deliveries, c.opts.Prefetch)
	defer stopHolding()
	c.state.Store(nil)
	c.log.Info("rabbitmq source consuming", "prefetch", c.opts.Prefetch)
	for {
		select {
		case <-ctx.Done():
			return true, nil
		case d, ok := <-held:
			if !ok {
				return true, deliveriesEnded(closes)
			}
			// The group is what the prefetch window already holds: a
			// lone delivery is stored at once, and the broker refills the
			// window after the group's acknowledgements.
			group, open := source.Gather(d, held, c.opts.Prefetch)
			c.handle(ctx, group)
			if !open {
				return true, deliveriesEnded(closes)
			}
		}
	}
}

// hold copies the deliveries into a channel of prefetch slots, so that
// every delivery the client has read waits there for Gather. The
// client's own delivery channel is unbuffered: it hands over one
// delivery at a time, and a receive that does not wait would miss the
// ones its goroutine has not yet offered. The copy never blocks, since
// the broker sends no more than prefetch unacknowledged deliveries. The
// held channel closes when the deliveries end; the returned func stops
// the copy and waits for it.
func hold(deliveries <-chan amqp.Delivery, prefetch int) (<-chan amqp.Delivery, func()) {
	held := make(chan amqp.Delivery, prefetch)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer close(held)
		for {
			select {
			case d, ok := <-deliveries:
				if !ok {
					return
				}
				select {
				case held <- d:
				case <-stop:
					return
				}
			case <-stop:
				return
			}
		}
	}()
	return held, func() {
		close(stop)
		<-done
	}
}

func deliveriesEnded(closes <-chan *amqp.Error) error {
	select {
	case e, ok := <-closes:
		if ok && e != nil {
			return fmt.Errorf("the broker closed the channel: %w", e)
		}
	default:
	}
	return errors.New("the broker ended the consumer (the queue was deleted, or the connection closed)")
}

// dial connects within DialTimeout. It waits for the dial even when ctx
// ends first, so no goroutine outlives Run; the timeout bounds the wait.
func (c *Consumer) dial(ctx context.Context) (*link, error) {
	type result struct {
		l   *link
		err error
	}
	done := make(chan result, 1)
	go func() {
		l, err := dialLink(c.opts.URL, "queuebox source "+c.source, c.opts.DialTimeout, nil)
		done <- result{l, err}
	}()
	select {
	case r := <-done:
		return r.l, r.err
	case <-ctx.Done():
		if r := <-done; r.l != nil {
			r.l.close(0)
		}
		return nil, ctx.Err()
	}
}

// subscribe opens the channel, sets the prefetch, checks or declares the
// queue and starts consuming.
func (c *Consumer) subscribe(l *link) (*amqp.Channel, <-chan amqp.Delivery, error) {
	ch, err := l.conn.Channel()
	if err != nil {
		return nil, nil, fmt.Errorf("open a channel: %w", err)
	}
	if err := ch.Qos(c.opts.Prefetch, 0, false); err != nil {
		return nil, nil, fmt.Errorf("set the prefetch count: %w", err)
	}
	if c.opts.DeclareQueue {
		_, err = ch.QueueDeclare(c.opts.Queue, true, false, false, false, nil)
	} else {
		// Passive: the broker says whether the queue exists and creates
		// nothing.
		_, err = ch.QueueDeclarePassive(c.opts.Queue, true, false, false, false, nil)
	}
	var amqpErr *amqp.Error
	switch {
	case errors.As(err, &amqpErr) && amqpErr.Code == amqp.NotFound:
		return nil, nil, &MissingQueueError{Source: c.source, Queue: c.opts.Queue}
	case err != nil:
		return nil, nil, fmt.Errorf("check the queue %q: %w", c.opts.Queue, err)
	}
	tag := "queuebox-" + c.source + "-" + uuid.NewString()
	deliveries, err := ch.Consume(c.opts.Queue, tag, false, false, false, false, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("consume the queue %q: %w", c.opts.Queue, err)
	}
	return ch, deliveries, nil
}

// handle stores one group of deliveries and then answers the broker for
// each of them. The acknowledgements of the group go in one frame: an ack
// with multiple set on the highest acknowledged delivery tag, which
// settles the deliveries of the group that were neither terminated nor
// requeued (every delivery before the group was answered already).
func (c *Consumer) handle(ctx context.Context, group []amqp.Delivery) {
	msgs := make([]ingest.Message, len(group))
	answers := make([]source.Answer, len(group))
	acks := &ackRun{}
	for i, d := range group {
		headers := receivedHeaders(d.Headers)
		corr := headers[correlationHeader]
		if corr == "" {
			corr = d.CorrelationId
		}
		msgs[i] = ingest.Message{Body: d.Body, Headers: headers, CorrelationID: corr,
			Broker: ingest.BrokerAttributes{MessageID: d.MessageId}}
		answers[i] = answer{c: c, d: d, acks: acks}
	}
	c.runner.HandleBatch(ctx, msgs, answers)
	if acks.last != nil {
		c.answered(acks.last.Ack(true), fmt.Sprintf("ack of %d messages", acks.n), ingest.Decision{})
	}
}

// ackRun collects the acknowledgements of one group.
type ackRun struct {
	last *amqp.Delivery // the acknowledged delivery of the highest tag
	n    int
}

// answer is the source.Answer of one delivery: ack (sent for the whole
// group by handle), nack without requeue (the broker drops it or
// dead-letters it), and nack with requeue after the backoff, so that a
// broken store does not turn the requeue into a busy loop.
type answer struct {
	c    *Consumer
	d    amqp.Delivery
	acks *ackRun
}

func (a answer) Ack(dec ingest.Decision) {
	a.c.log.Debug("message received", "outcome", dec.Outcome.String(), "id", dec.ID, "correlation_id", dec.CorrelationID)
	if a.acks.last == nil || a.d.DeliveryTag > a.acks.last.DeliveryTag {
		a.acks.last = &a.d
	}
	a.acks.n++
}

func (a answer) Term(dec ingest.Decision) {
	a.c.log.Warn("message rejected; the broker drops it or dead-letters it", "reason", dec.Reason,
		"correlation_id", dec.CorrelationID)
	a.c.answered(a.d.Nack(false, false), "nack", dec)
}

func (a answer) Nak(ctx context.Context, retryIn time.Duration) {
	backoff.Sleep(ctx, retryIn)
	a.c.answered(a.d.Nack(false, true), "nack (requeue)", ingest.Decision{})
}

func (c *Consumer) answered(err error, what string, dec ingest.Decision) {
	if err != nil {
		c.log.Warn("the broker did not take the "+what+"; it redelivers the message and the inbox finds it a duplicate",
			"outcome", dec.Outcome.String(), "correlation_id", dec.CorrelationID, "err", c.redactor.Redact(err.Error()))
	}
}
