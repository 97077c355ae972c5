package rabbitmq_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// benchConcurrency is outbox.concurrency in `make bench`: the number of
// publishes in flight at once.
const benchConcurrency = 16

// BenchmarkPublish measures persistent, confirmed publishes to a durable
// queue at benchConcurrency, through the Publisher and through a raw
// amqp091-go client that waits for each deferred confirm, and reports
// messages/s and this process's CPU per message beside each other.
func BenchmarkPublish(b *testing.B) {
	body := []byte(`{"n":12345,"kind":"bench","amount":345}`) // the size of make bench's rows
	b.Run("queuebox", func(b *testing.B) {
		a := newAdmin(b)
		exchange, queue := name(b, "x"), name(b, "q")
		p, err := rabbitmq.New(rabbitmq.Options{Name: "bench", URL: brokerURL(), Exchange: exchange, Timeout: 30 * time.Second})
		require.NoError(b, err)
		defer p.Close()
		require.NoError(b, p.Connect(context.Background()))
		a.queue(queue, exchange, "#")
		defer a.do(func(ch *amqp.Channel) error { _, err := ch.QueueDelete(queue, false, false, false); return err })
		var seq atomic.Int64
		measure(b, func() error {
			i := seq.Add(1)
			m := &queuebox.OutboxMessage{ID: fmt.Sprintf("0190a1b2-0000-7000-8000-%012d", i), Topic: "order.created",
				Payload: body, Attempt: 1, MaxAttempts: 10}
			return p.Publish(context.Background(), queuebox.Delivery{Message: m, Body: body})
		})
	})
	b.Run("raw", func(b *testing.B) {
		a := newAdmin(b)
		exchange, queue := name(b, "x"), name(b, "q")
		a.exchange(exchange, "topic")
		a.queue(queue, exchange, "#")
		defer a.do(func(ch *amqp.Channel) error { _, err := ch.QueueDelete(queue, false, false, false); return err })
		conn, err := amqp.Dial(brokerURL())
		require.NoError(b, err)
		defer conn.Close()
		ch, err := conn.Channel()
		require.NoError(b, err)
		require.NoError(b, ch.Confirm(false))
		var seq atomic.Int64
		measure(b, func() error {
			i := seq.Add(1)
			dc, err := ch.PublishWithDeferredConfirm(exchange, "order.created", true, false, amqp.Publishing{
				ContentType: "application/json", MessageId: fmt.Sprintf("0190a1b2-0000-7000-8000-%012d", i),
				DeliveryMode: amqp.Persistent, Headers: amqp.Table{"x-topic": "order.created", "x-attempt": int32(1)}, Body: body})
			if err != nil {
				return err
			}
			if ok, err := dc.WaitContext(context.Background()); err != nil || !ok {
				return fmt.Errorf("not confirmed: %v", err)
			}
			return nil
		})
	})
}

// measure runs b.N calls of publish from benchConcurrency goroutines and
// reports msgs/s and the CPU of this process per message.
func measure(b *testing.B, publish func() error) {
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	b.ResetTimer()
	start := time.Now()
	for range benchConcurrency {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := publish(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	report(b, elapsed, cpuTime()-cpu0)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConsume measures the source side without a database: b.N
// messages wait in a queue, and the consumer (prefetch 10) hands each to
// the ingest receiver over an in-memory inbox and acks it. It reports
// messages/s and this process's CPU per message: the broker client's and
// the receiver's share of what queuebox-ingest spends per message.
func BenchmarkConsume(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		consumeBench(b, func(s queuebox.InboxStore) queuebox.InboxStore { return s })
	})
	// With the real inbox on the local PostgreSQL, beside the same INSERT
	// from one connection (the source stores one message at a time).
	b.Run("postgres", func(b *testing.B) {
		_, db := pgtest.Migrated(b, 4)
		in, err := postgres.NewInbox(db, schema.New(schema.Postgres, schema.DefaultNames()))
		require.NoError(b, err)
		consumeBench(b, func(s queuebox.InboxStore) queuebox.InboxStore { return teeInbox{in, s} })
	})
	b.Run("postgres-insert-only", func(b *testing.B) {
		_, db := pgtest.Migrated(b, 4)
		in, err := postgres.NewInbox(db, schema.New(schema.Postgres, schema.DefaultNames()))
		require.NoError(b, err)
		cpu0 := cpuTime()
		b.ResetTimer()
		start := time.Now()
		for i := range b.N {
			_, _, err := in.Insert(context.Background(), queuebox.ReceivedRow{Source: "bench", IdempotencyKey: fmt.Sprint("m-", i),
				Payload: fmt.Appendf(nil, `{"id":"m-%d","type":"created","customer":"c-%d"}`, i, i%100)})
			require.NoError(b, err)
		}
		report(b, time.Since(start), cpuTime()-cpu0)
	})
}

// teeInbox stores in the real inbox, then counts in the counting one.
type teeInbox struct{ real, count queuebox.InboxStore }

func (t teeInbox) Insert(ctx context.Context, row queuebox.ReceivedRow) (string, bool, error) {
	id, ok, err := t.real.Insert(ctx, row)
	if err != nil {
		return id, ok, err
	}
	_, _, _ = t.count.Insert(ctx, row)
	return id, ok, nil
}

func consumeBench(b *testing.B, wrap func(queuebox.InboxStore) queuebox.InboxStore) {
	a := newAdmin(b)
	queue := name(b, "q")
	a.queue(queue, "", "")
	for i := range b.N {
		a.publish(queue, amqp.Publishing{ContentType: "application/json",
			Body: fmt.Appendf(nil, `{"id":"m-%d","type":"created","customer":"c-%d"}`, i, i%100)})
	}
	src := rabbitSource("bench", queue)
	store := &countingInbox{want: int64(b.N), all: make(chan struct{})}
	c, err := rabbitmq.NewConsumer(consumerOptions(b, src, wrap(store), fastOptions()))
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	cpu0 := cpuTime()
	b.ResetTimer()
	start := time.Now()
	go func() { done <- c.Run(ctx) }()
	<-store.all
	elapsed := time.Since(start)
	b.StopTimer()
	cpu := cpuTime() - cpu0
	cancel()
	require.NoError(b, <-done)
	report(b, elapsed, cpu)
}

func report(b *testing.B, elapsed, cpu time.Duration) {
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/msg")
}

// countingInbox stores nothing; it closes all once want rows arrived.
type countingInbox struct {
	n    atomic.Int64
	want int64
	all  chan struct{}
}

func (s *countingInbox) Insert(_ context.Context, row queuebox.ReceivedRow) (string, bool, error) {
	if s.n.Add(1) == s.want {
		close(s.all)
	}
	return row.ID, true, nil
}
