package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// TestBlockPrivateAddressesCoversBrokerDestinations: with
// http.blockPrivateAddresses on, queuebox-deliver refuses to start with a
// NATS, RabbitMQ or Kafka destination on a loopback address, naming the
// key, as it refuses an HTTP one; with only outside destinations it
// starts and says, in one line, which destination kinds the setting
// covers.
func TestBlockPrivateAddressesCoversBrokerDestinations(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	guarded := with(db.env(), "QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES", "true",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**", "QUEUEBOX_ROUTES_0_DESTINATION", "events")
	for kind, kv := range map[string][]string{
		"nats":     {"QUEUEBOX_DESTINATIONS_EVENTS_SERVERS", natstest.URL(), "QUEUEBOX_DESTINATIONS_EVENTS_SUBJECT", "orders"},
		"rabbitmq": {"QUEUEBOX_DESTINATIONS_EVENTS_URL", rabbitURL(), "QUEUEBOX_DESTINATIONS_EVENTS_EXCHANGE", "orders"},
		"kafka":    {"QUEUEBOX_DESTINATIONS_EVENTS_BOOTSTRAPSERVERS", "127.0.0.1:9092", "QUEUEBOX_DESTINATIONS_EVENTS_TOPIC", "orders"},
		// librdkafka's resolver connects to these legacy spellings of
		// 127.0.0.1; Go's reads none of them.
		"kafka 127.1":      {"QUEUEBOX_DESTINATIONS_EVENTS_BOOTSTRAPSERVERS", "127.1:9092", "QUEUEBOX_DESTINATIONS_EVENTS_TOPIC", "orders"},
		"kafka 2130706433": {"QUEUEBOX_DESTINATIONS_EVENTS_BOOTSTRAPSERVERS", "2130706433:9092", "QUEUEBOX_DESTINATIONS_EVENTS_TOPIC", "orders"},
		"kafka 0x7f000001": {"QUEUEBOX_DESTINATIONS_EVENTS_BOOTSTRAPSERVERS", "0x7f000001:9092", "QUEUEBOX_DESTINATIONS_EVENTS_TOPIC", "orders"},
	} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			p := start(t, "deliver", with(with(guarded, "QUEUEBOX_DESTINATIONS_EVENTS_TYPE", strings.Fields(kind)[0]), kv...))
			require.Equal(t, 2, p.wait(t, 30*time.Second))
			line := stderrLine(t, p)
			require.Contains(t, line, "("+kv[0]+")", "the error names the key")
			require.Contains(t, line, "a loopback address, and http.blockPrivateAddresses (QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES) is true")
		})
	}
	t.Run("outside destinations start", func(t *testing.T) {
		t.Parallel()
		// 203.0.113.0/24 is a documentation range: outside, and never
		// dialled here, since no row is written.
		p := startServing(t, "deliver", with(guarded, "QUEUEBOX_DESTINATIONS_EVENTS_TYPE", "http",
			"QUEUEBOX_DESTINATIONS_EVENTS_BASEURL", "https://203.0.113.10"))
		require.Eventually(t, func() bool {
			out := p.out.String()
			return strings.Contains(out, "http.blockPrivateAddresses is on") &&
				strings.Contains(out, "http,rabbitmq,nats,kafka") && strings.Contains(out, "broker sources")
		}, 30*time.Second, 20*time.Millisecond, "the start line says what the setting covers:\n%s", p.out.String())
	})
}
