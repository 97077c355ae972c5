package rabbitmq_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

// source is a rabbitmq source as the wiring maps a configured one: the
// options of its receive step and the queue that it consumes.
type source struct {
	ingest.Source
	URL, Queue   string
	Prefetch     int
	DeclareQueue bool
}

// rabbitSource is a rabbitmq source with the defaults of the
// configuration.
func rabbitSource(name, queue string) *source {
	return &source{
		Source: ingest.Source{
			Name: name, Consumption: ingest.ConsumptionPush, IdempotencyKeyPath: "$.id",
			AttributeHeaders: ingest.AttributeHeaders{
				IdempotencyKey: "x-idempotency-key", AggregateID: "x-aggregate-id", EventType: "x-event-type",
			},
		},
		URL: brokerURL(), Queue: queue, Prefetch: 10,
	}
}

type running struct {
	c      *rabbitmq.Consumer
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returned
	err    error         // what Run returned
}

// wait returns what Run returned, failing when it does not return.
func (r *running) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
		return nil
	}
}

// stop ends Run and returns its error.
func (r *running) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	return r.wait(t)
}

func fastOptions() rabbitmq.ConsumerOptions {
	return rabbitmq.ConsumerOptions{MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		DrainTimeout: 5 * time.Second}
}

// consume runs the consumer of src over store until the test ends.
func consume(t *testing.T, src *source, store queuebox.InboxStore, opts rabbitmq.ConsumerOptions) *running {
	t.Helper()
	c, err := rabbitmq.NewConsumer(consumerOptions(t, src, store, opts))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{c: c, cancel: cancel, done: make(chan struct{})}
	go func() {
		r.err = c.Run(ctx)
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

// consumerOptions returns opts with the source's keys and a receiver of
// the source over store, as the wiring of queuebox-ingest builds them.
func consumerOptions(t testing.TB, src *source, store queuebox.InboxStore, opts rabbitmq.ConsumerOptions) rabbitmq.ConsumerOptions {
	t.Helper()
	recv, err := ingest.NewReceiver(src.Source, ingest.Transport{DeadLetter: true, BrokerAttributes: true}, ingest.Options{
		Store: store, Metrics: mustMetrics(t), Transforms: ingest.Expressions(transform.JSONata),
	})
	require.NoError(t, err)
	opts.URL, opts.Queue, opts.Prefetch, opts.DeclareQueue = src.URL, src.Queue, src.Prefetch, src.DeclareQueue
	opts.Receiver = recv
	return opts
}

func mustMetrics(t testing.TB) *ingest.Metrics {
	t.Helper()
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	return m
}

func sha(body string) string {
	sum := sha256.Sum256([]byte(body))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func TestConsumerStoresEachMessageOnceAndAcksIt(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	queue := name(t, "q")
	a.queue(queue, "", "")
	src := rabbitSource("orders", queue)
	src.AggregateIDPath = "$.customer"
	store := &ingesttest.Inbox{}
	r := consume(t, src, store, fastOptions())

	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	sent := []amqp.Publishing{
		{Body: []byte(`{"id":"body-1","customer":"c-1"}`), MessageId: "m-ignored",
			Headers: amqp.Table{"x-idempotency-key": "hdr-1", "x-event-type": "order.created", "X-Tenant": "acme",
				"x-n": int64(1) << 40, "x-ok": true, "x-at": at, "x-bin": []byte{0xff}, "x-t": amqp.Table{"a": int32(1)}}},
		{Body: []byte(`{"id":"body-2"}`), MessageId: "m-ignored", Headers: amqp.Table{"x-aggregate-id": "agg-2"},
			CorrelationId: "corr-from-property"},
		{Body: []byte(`{"other":3}`), MessageId: "msg-3",
			Headers: amqp.Table{"X-Correlation-Id": "corr-from-header"}, CorrelationId: "corr-from-property"},
		{Body: []byte(`{"other":4}`)},
	}
	for _, m := range append(sent, sent...) {
		a.publish(queue, m)
	}
	eventually(t, func() bool { return len(store.Rows()) == 4 && a.count(queue) == 0 && store.Inserts() == 8 },
		"four rows, every message acknowledged")
	require.NoError(t, r.stop(t))
	require.Zero(t, a.count(queue), "nothing returns to the queue when the consumer stops: everything was acked")

	first := store.Row(t, "hdr-1")
	require.Equal(t, "orders", first.Source)
	require.Equal(t, "c-1", *first.AggregateID)
	require.Equal(t, "order.created", *first.EventType)
	require.Equal(t, map[string]string{"x-idempotency-key": "hdr-1", "x-event-type": "order.created",
		"x-tenant": "acme", "x-n": "1099511627776", "x-ok": "true", "x-at": "2024-05-06T07:08:09Z",
		"x-bin": "base64:/w==", "x-t": `{"a":1}`}, first.Headers)
	second := store.Row(t, "body-2")
	require.Equal(t, "agg-2", *second.AggregateID, "the header after aggregateIdPath")
	require.Nil(t, second.EventType)
	require.Equal(t, "corr-from-property", second.CorrelationID, "the AMQP correlation_id without a header")
	third := store.Row(t, "msg-3")
	require.Equal(t, "corr-from-header", third.CorrelationID, "the header wins over the property")
	fourth := store.Row(t, sha(`{"other":4}`))
	require.NotEmpty(t, fourth.CorrelationID, "a new UUID")
	require.Equal(t, `{"other":4}`, string(fourth.Payload))
}

func TestConsumerDeadLettersWhatNoConsumerCanRead(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	queue := name(t, "q")
	a.queue(queue, "", "")
	src := rabbitSource("orders", queue)
	src.Transform = &ingest.TransformSpec{Expression: `$.bad ? $error("refused") : $`, TimeoutMs: 1000, MaxDepth: 100,
		OnError: ingest.OnErrorDead}
	src.Filter = &ingest.FilterSpec{Exclude: []ingest.FilterRule{{Header: "X-Test", Exists: ptr(true)}}}
	store := &ingesttest.Inbox{}
	consume(t, src, store, fastOptions())
	a.publish(queue, amqp.Publishing{Body: []byte(`<not json/>`), MessageId: "raw-1"})
	a.publish(queue, amqp.Publishing{Body: []byte(`{"id":"t-1","bad":true}`)})
	a.publish(queue, amqp.Publishing{Body: []byte(`{"id":"f-1"}`), Headers: amqp.Table{"x-test": "yes"}})
	a.publish(queue, amqp.Publishing{Body: []byte(`{"id":"ok-1"}`)})
	eventually(t, func() bool { return len(store.Rows()) == 3 && a.count(queue) == 0 }, "three rows, all four acked")

	raw := store.Row(t, "raw-1")
	require.Equal(t, queuebox.StateDead, raw.State)
	require.JSONEq(t, `{"raw":"<not json/>"}`, string(raw.Payload))
	dead := store.Row(t, "t-1")
	require.Equal(t, queuebox.StateDead, dead.State)
	require.JSONEq(t, `{"id":"t-1","bad":true}`, string(dead.Payload), "the original payload")
	require.NotNil(t, dead.LastError)
	require.Contains(t, *dead.LastError, "transform")
	ok := store.Row(t, "ok-1")
	require.NotEqual(t, queuebox.StateDead, ok.State)
	for _, r := range store.Rows() {
		require.NotEqual(t, "f-1", r.IdempotencyKey, "the filtered message left no row")
	}
}

func ptr[T any](v T) *T { return &v }

// A missing queue stops the source, not Run: the source reports the
// queue and the setting that would declare it, declares nothing, and
// consumes once the queue exists.
func TestAMissingQueueStopsOnlyTheSource(t *testing.T) {
	t.Parallel()
	queue := name(t, "missing")
	store := &ingesttest.Inbox{}
	r := consume(t, rabbitSource("orders", queue), store, fastOptions())
	eventually(t, func() bool {
		err := r.c.Check(t.Context())
		return err != nil && strings.Contains(err.Error(), "does not exist")
	}, "down with the missing queue")
	err := r.c.Check(t.Context())
	require.Contains(t, err.Error(), queue)
	require.Contains(t, err.Error(), "sources.orders.declareQueue")
	select {
	case <-r.done:
		t.Fatalf("Run returned on a missing queue: %v", r.err)
	default:
	}
	a := newAdmin(t)
	require.Error(t, a.do(func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil)
		return err
	}), "the consumer declared nothing")

	a.queue(queue, "", "")
	eventually(t, func() bool { return r.c.Check(t.Context()) == nil }, "up once the queue exists")
	a.publish(queue, amqp.Publishing{Body: []byte(`{"id":"late-1"}`)})
	eventually(t, func() bool { return len(store.Rows()) == 1 }, "stored")
	require.NoError(t, r.stop(t))
}

func TestDeclareQueueCreatesIt(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	queue := name(t, "declared")
	t.Cleanup(func() {
		_ = a.do(func(ch *amqp.Channel) error { _, err := ch.QueueDelete(queue, false, false, false); return err })
	})
	src := rabbitSource("orders", queue)
	src.DeclareQueue = true
	store := &ingesttest.Inbox{}
	r := consume(t, src, store, fastOptions())
	eventually(t, func() bool { return r.c.Check(t.Context()) == nil }, "up")
	a.publish(queue, amqp.Publishing{Body: []byte(`{"id":"d-1"}`)})
	eventually(t, func() bool { return len(store.Rows()) == 1 }, "stored")
}

func TestConsumerReconnectsAndLosesNothing(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	queue := name(t, "q")
	a.queue(queue, "", "")
	proxy := brokertest.NewProxy(t, brokerHost(t))
	src := rabbitSource("orders", queue)
	src.URL = viaProxy(t, proxy.Addr())
	store := &ingesttest.Inbox{}
	r := consume(t, src, store, fastOptions())
	require.Error(t, r.c.Check(t.Context()), "down before the first connection")
	eventually(t, func() bool { return r.c.Check(t.Context()) == nil }, "up once consuming")

	const n = 200
	for i := range n {
		a.publish(queue, amqp.Publishing{Body: []byte(`{"id":"` + string(rune('a'+i%26)) + `-` + itoa(i) + `"}`)})
		if i%50 == 25 {
			proxy.Refuse(true)
			proxy.Cut()
			eventually(t, func() bool { return r.c.Check(t.Context()) != nil }, "down while disconnected")
			proxy.Refuse(false)
		}
	}
	eventually(t, func() bool { return len(store.Rows()) == n && a.count(queue) == 0 }, "every message stored once")
	eventually(t, func() bool { return r.c.Check(t.Context()) == nil }, "up again")
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
