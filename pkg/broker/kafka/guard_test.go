package kafka_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	kafkab "github.com/alternayte/queuebox/pkg/broker/kafka"
	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// With BlockPrivateAddresses a bootstrap server on an inside address stops
// New before librdkafka connects to it, as the start-time check refuses an
// HTTP destination.
func TestBlockPrivateAddressesRefusesTheBootstrapServers(t *testing.T) {
	t.Parallel()
	_, addr := kafkatest.Cluster(t)
	_, err := kafkab.New(kafkab.Options{Name: "events", Conn: kafkab.Conn{BootstrapServers: "8.8.8.8:9092," + addr},
		Topic: "orders", BlockPrivateAddresses: true})
	require.ErrorContains(t, err, "kafka destination events: connection to "+addr+
		" refused: it is a loopback address, and http.blockPrivateAddresses is true")
}

// A cluster whose bootstrap name looked outside but whose metadata lists a
// broker on an inside address gets no record: the publish is undeliverable
// (the row goes dead), and kfake's topic stays empty. The test's lookup
// calls localhost an outside address, so New lets librdkafka connect and
// only the metadata, where kfake names itself 127.0.0.1, can refuse.
func TestBlockPrivateAddressesRefusesABrokerOfTheMetadata(t *testing.T) {
	t.Parallel()
	c, addr := kafkatest.Cluster(t)
	topic := kafkatest.Topic(t, c, 1)
	outside := func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	byName := strings.Replace(addr, "127.0.0.1", "localhost", 1)
	p := newPublisher(t, kafkab.Options{Name: "events", Conn: kafkab.Conn{BootstrapServers: byName}, Topic: topic,
		BlockPrivateAddresses: true, Lookup: outside})
	m := row("r-guard", topic, "k")
	err := p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload})
	require.ErrorIs(t, err, queuebox.ErrUndeliverable)
	require.ErrorContains(t, err, "kafka destination events: connection to 127.0.0.1:")
	require.ErrorContains(t, err, "refused: it is a loopback address, and http.blockPrivateAddresses is true")
	require.Empty(t, kafkatest.Records(t, addr, topic))

	open := newPublisher(t, kafkab.Options{Name: "events", Conn: kafkab.Conn{BootstrapServers: byName}, Topic: topic})
	require.NoError(t, open.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload}))
	require.Len(t, kafkatest.Records(t, addr, topic), 1)
}

// A bootstrap server spelt as a legacy IPv4 address that Go does not read
// (127.1) stops New as 127.0.0.1 does: librdkafka's resolver connects to
// it.
func TestBlockPrivateAddressesReadsLegacyIPv4Spellings(t *testing.T) {
	t.Parallel()
	_, addr := kafkatest.Cluster(t)
	_, port, _ := strings.Cut(addr, "127.0.0.1:")
	for _, host := range []string{"127.1", "2130706433", "0x7f000001"} {
		_, err := kafkab.New(kafkab.Options{Name: "events", Conn: kafkab.Conn{BootstrapServers: host + ":" + port},
			Topic: "orders", BlockPrivateAddresses: true})
		require.ErrorContains(t, err, "kafka destination events: connection to 127.0.0.1:"+port+
			" refused: it is a loopback address, and http.blockPrivateAddresses is true", host)
	}
}
