package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/redact"
)

// Defaults of ConsumerOptions.
const (
	DefaultMinBackoff   = time.Second
	DefaultMaxBackoff   = 30 * time.Second
	DefaultDrainTimeout = 10 * time.Second
	DefaultDialTimeout  = 10 * time.Second
)

// correlationHeader is X-Correlation-Id under the lower-case name that
// received headers use.
const correlationHeader = "x-correlation-id"

// Receiver stores one received message; *ingest.Receiver built with
// ingest.Transport{DeadLetter: true, BrokerAttributes: true} is the one a
// rabbitmq source uses.
type Receiver interface {
	Receive(ctx context.Context, m ingest.Message) (ingest.Decision, error)
}

// ConsumerOptions are the dependencies and the timing of a Consumer.
type ConsumerOptions struct {
	// Logger receives connection events and failed acknowledgements. May
	// be nil.
	Logger *slog.Logger
	// Redactor knows the secrets of the configuration; the consumer adds
	// the password of connectionUrl. May be nil.
	Redactor *redact.Redactor
	// MinBackoff and MaxBackoff bound the wait before a reconnect, which
	// doubles after each failed connection, and the wait before a message
	// whose store failed is requeued, which doubles after each failure in
	// a row. Defaults 1 s and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// DrainTimeout bounds the store of the message in hand after Run's ctx
	// ends. Default 10 s.
	DrainTimeout time.Duration
	// DialTimeout bounds the TCP connect and the AMQP handshake. Default
	// 10 s.
	DialTimeout time.Duration
}

// MissingQueueError stops a source whose queue does not exist and that
// may not declare it.
type MissingQueueError struct {
	Source, Queue string
}

func (e *MissingQueueError) Error() string {
	return fmt.Sprintf("sources.%s.queueName: the queue %q does not exist; create it, or set sources.%s.declareQueue to true",
		e.Source, e.Queue, e.Source)
}

// Consumer is the run.Component of one rabbitmq source. Run consumes the
// queue with a prefetch of prefetchCount and hands each delivery to the
// Receiver, one at a time, in queue order. It acknowledges a delivery only
// after Receive returned a final decision (stored, duplicate, filtered or
// dead: the inbox row committed, or none is due), rejects a Rejected one
// without requeue, and requeues (nack) a delivery whose store failed,
// after a backoff. A message is therefore acknowledged only once the inbox
// holds it: a crash or a lost connection returns every unacknowledged
// message to the queue, and the inbox finds a redelivery a duplicate.
//
// The consumer never declares its queue unless declareQueue is true; a
// missing queue ends Run with a *MissingQueueError. Any other connection
// failure is retried with a backoff of MinBackoff doubling to MaxBackoff;
// Check reports the source down meanwhile. A Consumer is safe for
// concurrent use of Check while Run runs; Run runs once.
type Consumer struct {
	source, queue, url string
	prefetch           int
	declare            bool
	recv               Receiver
	opts               ConsumerOptions
	redactor           *redact.Redactor
	log                *slog.Logger

	state atomic.Pointer[error] // nil: up; else why it is down
	// storeFailures counts the failed stores in a row.
	storeFailures int
}

// NewConsumer builds the consumer of the rabbitmq source src; recv
// receives its messages.
func NewConsumer(src *config.Source, recv Receiver, opts ConsumerOptions) (*Consumer, error) {
	if recv == nil {
		return nil, errors.New("rabbitmq source: a Receiver is required")
	}
	if err := CheckURL(src.ConnectionURL); err != nil {
		return nil, fmt.Errorf("sources.%s.connectionUrl: %w", src.Name, err)
	}
	if src.QueueName == "" {
		return nil, fmt.Errorf("sources.%s.queueName: required", src.Name)
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
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	prefetch := src.PrefetchCount
	if prefetch <= 0 {
		prefetch = 10
	}
	c := &Consumer{source: src.Name, queue: src.QueueName, url: src.ConnectionURL, prefetch: prefetch,
		declare: src.DeclareQueue, recv: recv, opts: opts, redactor: redactorFor(opts.Redactor, src.ConnectionURL),
		log: log.With("source", src.Name, "queue", src.QueueName)}
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

// Run consumes until ctx ends (it then returns nil, after the message in
// hand was stored or DrainTimeout passed, and the connection closed, which
// requeues the prefetched messages) or the queue is missing.
func (c *Consumer) Run(ctx context.Context) error {
	backoff := c.opts.MinBackoff
	for {
		consumed, err := c.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		c.setDown(err)
		if missing := (*MissingQueueError)(nil); errors.As(err, &missing) {
			return err
		}
		if consumed {
			backoff = c.opts.MinBackoff
		}
		c.log.Warn("rabbitmq source disconnected; reconnecting", "err", c.redactor.Redact(err.Error()),
			"backoff", backoff.String())
		if !sleep(ctx, backoff) {
			return nil
		}
		backoff = min(2*backoff, c.opts.MaxBackoff)
	}
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
	c.state.Store(nil)
	c.log.Info("rabbitmq source consuming", "prefetch", c.prefetch)
	for {
		select {
		case <-ctx.Done():
			return true, nil
		case d, ok := <-deliveries:
			if !ok {
				return true, deliveriesEnded(closes)
			}
			c.handle(ctx, d)
		}
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
		l, err := dialLink(c.url, "queuebox source "+c.source, c.opts.DialTimeout)
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
	if err := ch.Qos(c.prefetch, 0, false); err != nil {
		return nil, nil, fmt.Errorf("set the prefetch count: %w", err)
	}
	if c.declare {
		_, err = ch.QueueDeclare(c.queue, true, false, false, false, nil)
	} else {
		// Passive: the broker says whether the queue exists and creates
		// nothing.
		_, err = ch.QueueDeclarePassive(c.queue, true, false, false, false, nil)
	}
	var amqpErr *amqp.Error
	switch {
	case errors.As(err, &amqpErr) && amqpErr.Code == amqp.NotFound:
		return nil, nil, &MissingQueueError{Source: c.source, Queue: c.queue}
	case err != nil:
		return nil, nil, fmt.Errorf("check the queue %q: %w", c.queue, err)
	}
	tag := "queuebox-" + c.source + "-" + uuid.NewString()
	deliveries, err := ch.Consume(c.queue, tag, false, false, false, false, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("consume the queue %q: %w", c.queue, err)
	}
	return ch, deliveries, nil
}

// handle stores one delivery and answers the broker.
func (c *Consumer) handle(ctx context.Context, d amqp.Delivery) {
	headers := receivedHeaders(d.Headers)
	corr := headers[correlationHeader]
	if corr == "" {
		corr = d.CorrelationId
	}
	rctx, cancel := drainContext(ctx, c.opts.DrainTimeout)
	dec, err := c.recv.Receive(rctx, ingest.Message{
		Body: d.Body, Headers: headers, CorrelationID: corr, Broker: ingest.BrokerAttributes{MessageID: d.MessageId},
	})
	cancel()
	switch {
	case err != nil:
		// Receive logged the failure. The wait keeps a broken store from
		// turning the requeue into a busy loop.
		c.storeFailures++
		sleep(ctx, min(c.opts.MinBackoff<<min(c.storeFailures-1, 16), c.opts.MaxBackoff))
		c.answer(d.Nack(false, true), "nack (requeue)", dec)
		return
	case dec.Outcome == ingest.Rejected:
		c.storeFailures = 0
		c.log.Warn("message rejected; the broker drops it or dead-letters it", "reason", dec.Reason,
			"correlation_id", dec.CorrelationID)
		c.answer(d.Nack(false, false), "nack", dec)
		return
	}
	c.storeFailures = 0
	c.log.Debug("message received", "outcome", dec.Outcome.String(), "id", dec.ID, "correlation_id", dec.CorrelationID)
	c.answer(d.Ack(false), "ack", dec)
}

func (c *Consumer) answer(err error, what string, dec ingest.Decision) {
	if err != nil {
		c.log.Warn("the broker did not take the "+what+"; it redelivers the message and the inbox finds it a duplicate",
			"outcome", dec.Outcome.String(), "correlation_id", dec.CorrelationID, "err", c.redactor.Redact(err.Error()))
	}
}

// drainContext returns a context that ends grace after ctx ends, so the
// message in hand can still be stored during a shutdown.
func drainContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var timer *time.Timer
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(grace, cancel)
	})
	return out, func() {
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel()
	}
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
