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
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/msg")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
