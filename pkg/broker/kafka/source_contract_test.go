package kafka_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	kafkab "github.com/alternayte/queuebox/pkg/broker/kafka"
	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
)

// TestSourceContract runs the suite every broker source passes, each case
// on a kfake cluster of its own.
func TestSourceContract(t *testing.T) {
	t.Parallel()
	brokertest.ExerciseSource(t, brokertest.SourceFactory{
		New: func(t *testing.T) brokertest.SourceBroker { return newSourceTopic(t) },
		Limits: brokertest.SourceLimits{NoTerminate: true,
			Why: "Kafka has no answer per record: the offset of a Rejected record is committed like a stored one's"},
	})
}

// sourceTopic is a topic of one partition and a group as a
// brokertest.SourceBroker.
type sourceTopic struct {
	addr, topic, group string
	client             *kgo.Client
}

func newSourceTopic(t *testing.T) *sourceTopic {
	c, addr := kafkatest.Cluster(t)
	return &sourceTopic{addr: addr, topic: kafkatest.Topic(t, c, 1), group: "qb-" + kafkatest.Suffix(),
		client: kafkatest.Client(t, addr)}
}

func (b *sourceTopic) Publish(t *testing.T, body []byte, headers map[string]string) {
	r := &kgo.Record{Topic: b.topic, Value: body}
	for k, v := range headers {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
	}
	kafkatest.Produce(t, b.client, r)
}

func (b *sourceTopic) Consumer(t *testing.T, cfg brokertest.SourceConfig) brokertest.SourceConsumer {
	c, err := kafkab.NewConsumer(kafkab.ConsumerOptions{Conn: kafkab.Conn{BootstrapServers: b.addr},
		Topics: []string{b.topic}, GroupID: b.group, Receiver: cfg.Receiver, Logger: quietLog(),
		MinBackoff: cfg.MinBackoff, MaxBackoff: cfg.MaxBackoff, DrainTimeout: cfg.DrainTimeout})
	require.NoError(t, err)
	return c
}

// Remaining counts the records past the group's committed offset.
func (b *sourceTopic) Remaining(t *testing.T) int {
	committed := kafkatest.Committed(t, b.addr, b.group, b.topic)
	n := 0
	for p, end := range kafkatest.EndOffsets(t, b.addr, b.topic) {
		n += int(end - max(committed[p], 0))
	}
	return n
}

func (b *sourceTopic) Terminated(t *testing.T) int {
	t.Fatal("Limits.NoTerminate: Kafka has no termination to count")
	return 0
}
