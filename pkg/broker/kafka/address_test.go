package kafka_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	kafkab "github.com/alternayte/queuebox/pkg/broker/kafka"
	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// A topic that the row chooses and that Kafka keeps for itself or would
// refuse is never produced to: the publish is undeliverable (the row goes
// dead at once), and the reason names the destination and the topic.
func TestPublishRefusesAReservedOrInvalidRenderedTopic(t *testing.T) {
	t.Parallel()
	c, addr := kafkatest.Cluster(t)
	internal := "__qb_internal_" + kafkatest.Suffix()
	require.NoError(t, c.CreateTopic(internal, 1, nil))
	p := newPublisher(t, kafkab.Options{Name: "events", Conn: kafkab.Conn{BootstrapServers: addr},
		Topic: "{{ topic }}"})
	for _, topic := range []string{"__consumer_offsets", internal, "orders/created", ".."} {
		m := row("r-"+topic, topic, "k")
		err := p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload})
		require.ErrorIs(t, err, queuebox.ErrUndeliverable, topic)
		require.ErrorContains(t, err, "kafka destination events")
		require.ErrorContains(t, err, topic)
	}
	require.Empty(t, kafkatest.Records(t, addr, internal), "nothing reached the reserved topic")

	ok := kafkatest.Topic(t, c, 1)
	m := row("r-ok", ok, "k")
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload}))
	require.Len(t, kafkatest.Records(t, addr, ok), 1)
}
