package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// rabbitSeq numbers the exchanges and queues of this process.
var rabbitSeq atomic.Int64

// rabbitTarget is a durable topic exchange with one durable queue bound
// to it by "#", both named for this process and measurement.
type rabbitTarget struct {
	url, exchange, queue string
	conn                 *amqp.Connection
	admin                *amqp.Channel
}

func newRabbitTarget(_ context.Context, tag string) (target, error) {
	url := *brokerRabbitURL
	conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(10 * time.Second),
		Properties: amqp.Table{"connection_name": "qbbench"}})
	if err != nil {
		return nil, fmt.Errorf("connect to RabbitMQ (make services starts it): %w", err)
	}
	name := fmt.Sprintf("qbbench.%d.%s.%d", os.Getpid(), tag, rabbitSeq.Add(1))
	t := &rabbitTarget{url: url, exchange: name, queue: name, conn: conn}
	if t.admin, err = conn.Channel(); err != nil {
		t.close()
		return nil, err
	}
	err = t.admin.ExchangeDeclare(t.exchange, "topic", true, false, false, false, nil)
	if err == nil {
		_, err = t.admin.QueueDeclare(t.queue, true, false, false, false, nil)
	}
	if err == nil {
		err = t.admin.QueueBind(t.queue, "#", t.exchange, false, nil)
	}
	if err != nil {
		t.close()
		return nil, fmt.Errorf("declare exchange and queue %s: %w", name, err)
	}
	return t, nil
}

// destinationEnv is the destination "broker": the exchange, declared
// the same way (durable topic), persistent messages, routing key {{ topic }}.
func (t *rabbitTarget) destinationEnv() map[string]string {
	return map[string]string{
		"QUEUEBOX_DESTINATIONS_BROKER_TYPE":         "rabbitmq",
		"QUEUEBOX_DESTINATIONS_BROKER_URL":          t.url,
		"QUEUEBOX_DESTINATIONS_BROKER_EXCHANGE":     t.exchange,
		"QUEUEBOX_DESTINATIONS_BROKER_EXCHANGETYPE": "topic",
		"QUEUEBOX_DESTINATIONS_BROKER_DELIVERYMODE": "persistent",
	}
}

// sourceEnv is the source "bench" on the queue, with the default
// prefetch (10): brokerIngestRows sets another per row. The queue
// exists, so declareQueue stays false.
func (t *rabbitTarget) sourceEnv() map[string]string {
	return map[string]string{
		"QUEUEBOX_SOURCES_BENCH_TYPE":               "rabbitmq",
		"QUEUEBOX_SOURCES_BENCH_QUEUENAME":          t.queue,
		"QUEUEBOX_SOURCES_BENCH_CONNECTIONURL":      t.url,
		"QUEUEBOX_SOURCES_BENCH_IDEMPOTENCYKEYPATH": "$.id",
		"QUEUEBOX_SOURCES_BENCH_EVENTTYPEPATH":      "$.type",
		"QUEUEBOX_SOURCES_BENCH_AGGREGATEIDPATH":    "$.customer",
		"QUEUEBOX_SOURCES_BENCH_TOPIC":              "bench.{{ eventType }}",
	}
}

// publish sends to the exchange with the routing key of the topic, on
// one channel in confirm mode with the mandatory flag, as the
// destination does: each goroutine waits for the broker's confirm of its
// message before it sends the next. The properties and headers are those
// the destination sets (message_id, content_type, delivery_mode 2,
// x-topic, x-attempt).
func (t *rabbitTarget) publish(ctx context.Context, n, conc int, msg func(i int) rawMessage) error {
	ch, err := t.conn.Channel()
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := ch.Confirm(false); err != nil {
		return fmt.Errorf("confirm mode: %w", err)
	}
	var returned atomic.Int64
	returns := ch.NotifyReturn(make(chan amqp.Return, 16))
	go func() {
		for range returns {
			returned.Add(1)
		}
	}()
	err = publishAll(ctx, n, conc, func(ctx context.Context, i int) error {
		m := msg(i)
		dc, err := ch.PublishWithDeferredConfirmWithContext(ctx, t.exchange, m.Topic, true, false, amqp.Publishing{
			ContentType: "application/json", MessageId: m.ID, DeliveryMode: amqp.Persistent,
			Headers: amqp.Table{"x-topic": m.Topic, "x-attempt": int32(1)}, Body: m.Body,
		})
		if err != nil {
			return err
		}
		ok, err := dc.WaitContext(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("the broker nacked message %d", i)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if r := returned.Load(); r > 0 {
		return fmt.Errorf("%d of %d messages were returned unroutable", r, n)
	}
	return nil
}

// stored is the number of ready messages in the queue.
func (t *rabbitTarget) stored(context.Context) (int64, error) {
	q, err := t.admin.QueueDeclarePassive(t.queue, true, false, false, false, nil)
	if err != nil {
		return 0, fmt.Errorf("inspect queue %s: %w", t.queue, err)
	}
	return int64(q.Messages), nil
}

// firstBody reads the head of the queue and puts it back (nack with
// requeue), so the count stays.
func (t *rabbitTarget) firstBody(context.Context) ([]byte, error) {
	d, ok, err := t.admin.Get(t.queue, false)
	if err != nil || !ok {
		return nil, fmt.Errorf("get a message from queue %s: ok %v, %v", t.queue, ok, err)
	}
	return d.Body, d.Nack(false, true)
}

// settled checks, once queuebox-ingest stopped, that the queue is empty:
// a delivery it had not acknowledged would be ready again.
func (t *rabbitTarget) settled(ctx context.Context) error {
	n, err := t.stored(ctx)
	if err != nil {
		return err
	}
	if n != 0 {
		return fmt.Errorf("%d messages left unacknowledged in queue %s", n, t.queue)
	}
	return nil
}

// close deletes the queue and the exchange and closes the connection.
func (t *rabbitTarget) close() {
	if t.admin != nil {
		_, qerr := t.admin.QueueDelete(t.queue, false, false, false)
		eerr := t.admin.ExchangeDelete(t.exchange, false, false)
		if err := errors.Join(qerr, eerr); err != nil {
			logf("warning: delete RabbitMQ queue/exchange %s: %v", t.queue, err)
		}
	}
	_ = t.conn.Close()
}

// brokerIngestRow is one ingest row of a broker: its name, the variables
// it adds to the source's, what they change in the notes, and whether
// the row is INFO rather than judged at brokerIngestShare.
type brokerIngestRow struct {
	name  string
	env   map[string]string
	fetch string
	info  bool
}

// brokerIngestRows returns the ingest rows of br. RabbitMQ has two
// (issue 42): the spec's default prefetch 10 as INFO, and
// -rabbitmq-prefetch (100, what the docs advise for throughput) judged;
// the other brokers one, at their defaults.
func brokerIngestRows(br broker) []brokerIngestRow {
	if br.label != "RabbitMQ" {
		return []brokerIngestRow{{name: fmt.Sprintf("ingest from %s, %s messages", br.label, group(int64(*brokerMessages)))}}
	}
	row := func(prefetch int, info bool) brokerIngestRow {
		return brokerIngestRow{
			name:  fmt.Sprintf("ingest from RabbitMQ, prefetch %d", prefetch),
			env:   map[string]string{"QUEUEBOX_SOURCES_BENCH_PREFETCHCOUNT": itoa(prefetch)},
			fetch: fmt.Sprintf("prefetch %d", prefetch), info: info,
		}
	}
	return []brokerIngestRow{row(10, true), row(*rabbitPrefetch, false)}
}
