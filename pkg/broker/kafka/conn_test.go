package kafka

import (
	"testing"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/secret"
)

func TestConfigMapSecurity(t *testing.T) {
	t.Parallel()
	base := func(extra ckafka.ConfigMap) ckafka.ConfigMap {
		m := ckafka.ConfigMap{"bootstrap.servers": "b1:9092,b2:9092", "client.id": "id",
			"go.logs.channel.enable": true, "log.connection.close": false}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name string
		conn Conn
		want ckafka.ConfigMap
	}{
		{"default plaintext", Conn{BootstrapServers: " b1:9092, b2:9092 ,"},
			base(ckafka.ConfigMap{"security.protocol": "plaintext"})},
		{"ssl probes the system CA", Conn{BootstrapServers: "b1:9092,b2:9092", SecurityProtocol: "SSL"},
			base(ckafka.ConfigMap{"security.protocol": "ssl", "ssl.ca.location": "probe"})},
		{"sasl plaintext", Conn{BootstrapServers: "b1:9092,b2:9092", SecurityProtocol: "SASL_PLAINTEXT",
			SaslMechanism: "PLAIN", SaslUsername: "u", SaslPassword: secret.New("pw")},
			base(ckafka.ConfigMap{"security.protocol": "sasl_plaintext", "sasl.mechanisms": "PLAIN",
				"sasl.username": "u", "sasl.password": "pw"})},
		{"sasl ssl", Conn{BootstrapServers: "b1:9092,b2:9092", SecurityProtocol: "sasl_ssl",
			SaslMechanism: "SCRAM-SHA-512", SaslUsername: "u", SaslPassword: secret.New("pw")},
			base(ckafka.ConfigMap{"security.protocol": "sasl_ssl", "sasl.mechanisms": "SCRAM-SHA-512",
				"sasl.username": "u", "sasl.password": "pw", "ssl.ca.location": "probe"})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, c.conn.validate())
			require.Equal(t, c.want, c.conn.configMap("id"))
		})
	}
}

func TestConnValidate(t *testing.T) {
	t.Parallel()
	require.ErrorContains(t, Conn{}.validate(), "bootstrapServers")
	require.ErrorContains(t, Conn{BootstrapServers: "b:1", SecurityProtocol: "TLS"}.validate(), "securityProtocol")
	err := Conn{BootstrapServers: "b:1", SecurityProtocol: "SASL_SSL", SaslMechanism: "PLAIN"}.validate()
	require.ErrorContains(t, err, "saslUsername and saslPassword")
	// The password itself never appears in an error.
	err = Conn{BootstrapServers: "", SecurityProtocol: "SASL_SSL", SaslPassword: secret.New("hunter2")}.validate()
	require.NotContains(t, err.Error(), "hunter2")
}

func TestReceivedHeaders(t *testing.T) {
	t.Parallel()
	got := receivedHeaders([]ckafka.Header{
		{Key: "X-Idempotency-Key", Value: []byte("k1")},
		{Key: "dup", Value: []byte("first")},
		{Key: "DUP", Value: []byte("last")},
		{Key: "null", Value: nil},
		{Key: "empty", Value: []byte{}},
		{Key: "binary", Value: []byte{0xff, 0x00, 0x01}},
		{Key: "utf8", Value: []byte("ünïcode")},
	})
	require.Equal(t, map[string]string{
		"x-idempotency-key": "k1", "dup": "last", "null": "", "empty": "",
		"binary": "base64:/wAB", "utf8": "ünïcode",
	}, got)
}

// MaxMessageBytes sets the fetch bounds, no lower than one message and
// never above librdkafka's defaults; zero leaves them alone.
func TestConsumerConfigFetchBounds(t *testing.T) {
	t.Parallel()
	conf := func(n int64, poll int) ckafka.ConfigMap {
		c := &Consumer{source: "s", opts: ConsumerOptions{GroupID: "g", MaxPollRecords: poll, MaxMessageBytes: n}}
		return *c.consumerConfig()
	}
	m := conf(1<<20, 100)
	require.Equal(t, 1<<20, m["max.partition.fetch.bytes"])
	require.Equal(t, 65536, m["queued.max.messages.kbytes"], "100 MiB of prefetch is capped at the default")
	m = conf(64<<10, 10)
	require.Equal(t, 64<<10, m["max.partition.fetch.bytes"])
	require.Equal(t, 1024, m["queued.max.messages.kbytes"], "at least 1 MiB of prefetch")
	m = conf(0, 100)
	require.NotContains(t, m, "max.partition.fetch.bytes")
	require.NotContains(t, m, "queued.max.messages.kbytes")
}
