package nats_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

// source is a nats source as the wiring maps a configured one: the
// options of its receive step and the stream that it consumes.
type source struct {
	ingest.Source
	Servers, Stream, Durable, FilterSubject string
	AckWait                                 time.Duration
	BatchSize                               int
}

// natsSource returns a nats source on stream with the defaults of the
// configuration.
func natsSource(name, stream string) *source {
	return &source{
		Source: ingest.Source{
			Name: name, Consumption: ingest.ConsumptionPush, IdempotencyKeyPath: "$.id",
			AttributeHeaders: ingest.AttributeHeaders{IdempotencyKey: "x-idempotency-key",
				AggregateID: "x-aggregate-id", EventType: "x-event-type"},
		},
		Servers: natstest.URL(), Stream: stream, Durable: "qb-" + natstest.Suffix(), AckWait: 30 * time.Second, BatchSize: 100,
	}
}

// fixture is a stream, a source on it and its consumer, running.
type fixture struct {
	js     jetstream.JetStream
	stream jetstream.Stream
	prefix string
	src    *source
	store  *ingesttest.Inbox
	cons   *natsb.Consumer
}

// newFixture creates a stream; edit changes the source before the
// consumer starts. Call run to start it.
func newFixture(t *testing.T, edit func(*source)) *fixture {
	t.Helper()
	_, js := natstest.Connect(t, natstest.URL())
	s, prefix := natstest.Stream(t, js)
	f := &fixture{js: js, stream: s, prefix: prefix, src: natsSource("orders-"+natstest.Suffix(), s.CachedInfo().Config.Name), store: &ingesttest.Inbox{}}
	if edit != nil {
		edit(f.src)
	}
	return f
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func consumerFor(t *testing.T, src *source, store ingest.Store) *natsb.Consumer {
	t.Helper()
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	recv, err := ingest.NewReceiver(src.Source, ingest.Transport{DeadLetter: true, BrokerAttributes: true},
		ingest.Options{Store: store, Metrics: m, Log: quietLog(), Transforms: ingest.Expressions(transform.JSONata)})
	require.NoError(t, err)
	c, err := natsb.NewConsumer(natsb.ConsumerOptions{
		Conn: natsb.Conn{Servers: src.Servers}, Stream: src.Stream, Durable: src.Durable,
		FilterSubject: src.FilterSubject, AckWait: src.AckWait, BatchSize: src.BatchSize,
		Receiver: recv, Logger: quietLog(),
	})
	require.NoError(t, err)
	return c
}

// run starts the consumer until the test ends; Run must return nil then.
func (f *fixture) run(t *testing.T) {
	t.Helper()
	f.cons = consumerFor(t, f.src, f.store)
	runConsumer(t, f.cons)
	require.Eventually(t, func() bool { return f.cons.Check(context.Background()) == nil },
		30*time.Second, 10*time.Millisecond, "the consumer to be up")
}

func runConsumer(t *testing.T, c *natsb.Consumer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
}

func (f *fixture) publish(t *testing.T, body string, headers ...string) {
	t.Helper()
	h := map[string]string{}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	natstest.Publish(t, f.js, f.prefix+".in", []byte(body), h)
}

// settled waits until the consumer has acknowledged every message.
func (f *fixture) settled(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool {
		pending, ackPending := natstest.Pending(t, f.stream, f.src.Durable)
		return pending == 0 && ackPending == 0
	}, 60*time.Second, 10*time.Millisecond, "every message acknowledged")
}

// waitRows waits for n rows.
func (f *fixture) waitRows(t *testing.T, n int) []queuebox.ReceivedRow {
	t.Helper()
	require.Eventually(t, func() bool { return len(f.store.Rows()) >= n }, 60*time.Second, 10*time.Millisecond, "%d rows", n)
	return f.store.Rows()
}

func natsMsg(subject, body string) *gonats.Msg {
	return &gonats.Msg{Subject: subject, Data: []byte(body), Header: gonats.Header{}}
}
