package kafka

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/stretchr/testify/require"
)

// countingHandler keeps the message of every record logged through it.
type countingHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *countingHandler) WithGroup(string) slog.Handler            { return h }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Message)
	return nil
}

// count returns how many records hold substr.
func (h *countingHandler) count(substr string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.msgs {
		if strings.Contains(m, substr) {
			n++
		}
	}
	return n
}

func (h *countingHandler) total() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.msgs)
}

// fakeClock is the clock of errorLog in the tests.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func testConsumer(h slog.Handler, clock *fakeClock) *Consumer {
	c := &Consumer{log: slog.New(h)}
	c.errs = newErrorLog(c.log, "kafka consumer")
	c.errs.now = clock.now
	return c
}

// A broker down for a minute and a second makes librdkafka report about 19 errors a
// second; the consumer logs the first, one summary per 30 s, and one line
// when a record arrives again.
func TestConsumerThrottlesBrokerDownErrors(t *testing.T) {
	t.Parallel()
	h, clock := &countingHandler{}, &fakeClock{t: time.Unix(1_767_000_000, 0)}
	c := testConsumer(h, clock)
	down := ckafka.NewError(ckafka.ErrAllBrokersDown, "1/1 brokers are down", false)
	refused := ckafka.NewError(ckafka.ErrTransport, "127.0.0.1:9092/1: Connect to ipv4#127.0.0.1:9092 failed", false)
	for i := range 61 * 19 {
		ev := ckafka.Event(refused)
		if i%19 == 0 {
			ev = down
		}
		require.Nil(t, c.handle(ev))
		c.errs.tick()
		clock.add(time.Second / 19)
	}
	require.True(t, c.down.Load(), "all brokers down still marks the consumer down")
	require.Equal(t, 1, h.count("kafka consumer error;"), "one line when it goes down")
	require.Equal(t, 2, h.count("errors suppressed"), "one summary per 30 s")
	require.Equal(t, 3, h.total())

	topic := "orders"
	rec := &ckafka.Message{TopicPartition: ckafka.TopicPartition{Topic: &topic}, Value: []byte("{}")}
	require.Same(t, rec, c.handle(rec))
	require.Same(t, rec, c.handle(rec))
	require.Equal(t, 1, h.count("kafka consumer recovered"), "one line when it is up again")
	require.Equal(t, 4, h.total())
}

// Errors that stop without a record (an idle topic) end with the summary
// of the last errors and then one recovered line after a quiet window.
func TestErrorLogRecoversAfterAQuietWindow(t *testing.T) {
	t.Parallel()
	h, clock := &countingHandler{}, &fakeClock{t: time.Unix(1_767_000_000, 0)}
	l := newErrorLog(slog.New(h), "kafka producer")
	l.now = clock.now
	for range 5 {
		l.failed("connection refused")
	}
	clock.add(summaryEvery)
	l.tick()
	require.Equal(t, 1, h.count("kafka producer errors suppressed"))
	clock.add(summaryEvery)
	l.tick()
	require.Equal(t, 1, h.count("kafka producer recovered"))
	l.failed("connection refused")
	require.Equal(t, 2, h.count("kafka producer error;"), "a new failure is a new state change")
	require.Equal(t, 4, h.total())
}
