package kafka_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	kafkab "github.com/alternayte/queuebox/pkg/broker/kafka"
	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fixture is a kfake cluster with one topic, a Kafka source on it and an
// inbox in memory.
type fixture struct {
	cluster *kfake.Cluster
	addr    string
	topic   string
	src     *source
	store   *ingesttest.Inbox
	client  *kgo.Client
}

// source is a Kafka source as the wiring maps a configured one: the
// options of its receive step and the topics that it consumes.
type source struct {
	ingest.Source
	BootstrapServers string
	Topics           []string
	GroupID          string
	AutoOffsetReset  string
	MaxPollRecords   int
}

func newFixture(t *testing.T, partitions int32, edit func(*source)) *fixture {
	t.Helper()
	c, addr := kafkatest.Cluster(t)
	f := &fixture{cluster: c, addr: addr, topic: kafkatest.Topic(t, c, partitions), store: &ingesttest.Inbox{}}
	f.src = &source{
		Source: ingest.Source{
			Name: "orders-" + kafkatest.Suffix(), Consumption: ingest.ConsumptionPush, IdempotencyKeyPath: "$.id",
			AttributeHeaders: ingest.AttributeHeaders{IdempotencyKey: "x-idempotency-key",
				AggregateID: "x-aggregate-id", EventType: "x-event-type"},
		},
		BootstrapServers: addr, Topics: []string{f.topic}, GroupID: "qb-" + kafkatest.Suffix(),
		AutoOffsetReset: "earliest", MaxPollRecords: 100,
	}
	if edit != nil {
		edit(f.src)
	}
	f.client = kafkatest.Client(t, addr, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	return f
}

func (f *fixture) consumer(t *testing.T) *kafkab.Consumer {
	t.Helper()
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	recv, err := ingest.NewReceiver(f.src.Source, ingest.Transport{DeadLetter: true, BrokerAttributes: true},
		ingest.Options{Store: f.store, Metrics: m, Log: quietLog(), Transforms: ingest.Expressions(transform.JSONata)})
	require.NoError(t, err)
	c, err := kafkab.NewConsumer(kafkab.ConsumerOptions{
		Conn: kafkab.Conn{BootstrapServers: f.src.BootstrapServers}, Topics: f.src.Topics, GroupID: f.src.GroupID,
		AutoOffsetReset: f.src.AutoOffsetReset, MaxPollRecords: f.src.MaxPollRecords, Receiver: recv, Logger: quietLog(),
	})
	require.NoError(t, err)
	return c
}

// run starts a consumer until the test ends (or stop is called) and
// waits until it joined the group.
func (f *fixture) run(t *testing.T) (c *kafkab.Consumer, stop func()) {
	t.Helper()
	c = f.consumer(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(60 * time.Second):
				t.Error("Run did not return after cancel")
			}
		})
	}
	t.Cleanup(stop)
	require.Eventually(t, func() bool { return c.Check(context.Background()) == nil },
		60*time.Second, 10*time.Millisecond, "the consumer to join its group")
	return c, stop
}

// produce writes one record to partition p with the key (nil for none) and
// the headers, given as name, value pairs.
func (f *fixture) produce(t *testing.T, p int32, key []byte, body string, headers ...string) {
	t.Helper()
	r := &kgo.Record{Topic: f.topic, Partition: p, Key: key, Value: []byte(body)}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: headers[i], Value: []byte(headers[i+1])})
	}
	kafkatest.Produce(t, f.client, r)
}

// committedAll waits until the group committed every partition up to its
// end.
func (f *fixture) committedAll(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool {
		ends := kafkatest.EndOffsets(t, f.addr, f.topic)
		got := kafkatest.Committed(t, f.addr, f.src.GroupID, f.topic)
		for p, end := range ends {
			if end > 0 && got[p] != end {
				return false
			}
		}
		return true
	}, 60*time.Second, 20*time.Millisecond, "every offset committed")
}

func (f *fixture) waitRows(t *testing.T, n int) []queuebox.ReceivedRow {
	t.Helper()
	require.Eventually(t, func() bool { return len(f.store.Rows()) >= n }, 60*time.Second, 10*time.Millisecond, "%d rows", n)
	return f.store.Rows()
}
