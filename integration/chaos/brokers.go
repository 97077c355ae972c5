package chaos

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// brokerSources are the inbox sources of scenario 3, checked like the
// webhook source of the inbox scenarios.
var brokerSources = []string{"jet", "rab"}

// BrokerScenario is scenario 3: every message crosses both brokers as a
// destination and as a source. The producer's outbox row goes to a NATS
// JetStream stream, ingest stores it in the inbox (source jet), relay
// routes it to a RabbitMQ exchange, ingest stores it again from the
// bound queue (source rab), and relay and deliver hand it to the
// recording receiver. Every process reaches the brokers through proxies
// the suite owns. NATS is a private nats-server that the suite restarts
// with SIGKILL; the RabbitMQ is the shared one, which must never be
// restarted, so its faults are cut connections only. Its exchange and
// queue have unique names and are deleted when the test ends.
func BrokerScenario(t *testing.T) Scenario {
	t.Helper()
	nats := natstest.StartServer(t)
	natsProxy := brokertest.NewProxy(t, strings.TrimPrefix(nats.URL, "nats://"))
	_, js := natstest.Connect(t, nats.URL)
	stream := natstest.StreamOn(t, js, "QBCHAOS_"+natstest.Suffix(), "qbchaos.>")

	rabbitURL, rabbitHost := sharedRabbit(t)
	exchange, queue := declareRabbit(t, rabbitURL)
	rabbitProxy := brokertest.NewProxy(t, rabbitHost)
	viaProxy, _ := url.Parse(rabbitURL)
	viaProxy.Host = rabbitProxy.Addr()

	env := map[string]string{
		"QUEUEBOX_ROUTES_0_TOPICPATTERN": "rab.**",
		"QUEUEBOX_ROUTES_0_DESTINATION":  "webhook",
		"QUEUEBOX_ROUTES_1_TOPICPATTERN": "chaos",
		"QUEUEBOX_ROUTES_1_DESTINATION":  "tonats",
		"QUEUEBOX_ROUTES_2_TOPICPATTERN": "jet.**",
		"QUEUEBOX_ROUTES_2_DESTINATION":  "torab",

		"QUEUEBOX_DESTINATIONS_TONATS_TYPE":    "nats",
		"QUEUEBOX_DESTINATIONS_TONATS_SERVERS": "nats://" + natsProxy.Addr(),
		"QUEUEBOX_DESTINATIONS_TONATS_SUBJECT": "qbchaos.in",
		"QUEUEBOX_DESTINATIONS_TORAB_TYPE":     "rabbitmq",
		"QUEUEBOX_DESTINATIONS_TORAB_URL":      viaProxy.String(),
		"QUEUEBOX_DESTINATIONS_TORAB_EXCHANGE": exchange,
		// A cut fails a few publishes in a row; the breaker would pause
		// the destination for 30 s each time.
		"QUEUEBOX_DESTINATIONS_TORAB_EXCHANGETYPE":                                 "topic",
		"QUEUEBOX_DESTINATIONS_TORAB_DELIVERYMODE":                                 "persistent",
		"QUEUEBOX_DESTINATIONS_TONATS_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD": "100000",
		"QUEUEBOX_DESTINATIONS_TORAB_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD":  "100000",

		"QUEUEBOX_SOURCES_JET_TYPE":               "nats",
		"QUEUEBOX_SOURCES_JET_SERVERS":            "nats://" + natsProxy.Addr(),
		"QUEUEBOX_SOURCES_JET_STREAM":             stream.CachedInfo().Config.Name,
		"QUEUEBOX_SOURCES_JET_DURABLE":            "queuebox-chaos",
		"QUEUEBOX_SOURCES_JET_IDEMPOTENCYKEYPATH": "$.id",
		"QUEUEBOX_SOURCES_JET_AGGREGATEIDPATH":    "$.k",
		"QUEUEBOX_SOURCES_JET_TOPIC":              "jet.in",
		// A message in flight when a fault hits comes back after ackWait;
		// a short one keeps the run short.
		"QUEUEBOX_SOURCES_JET_ACKWAITMS":          "5000",
		"QUEUEBOX_SOURCES_RAB_TYPE":               "rabbitmq",
		"QUEUEBOX_SOURCES_RAB_QUEUENAME":          queue,
		"QUEUEBOX_SOURCES_RAB_CONNECTIONURL":      viaProxy.String(),
		"QUEUEBOX_SOURCES_RAB_IDEMPOTENCYKEYPATH": "$.id",
		"QUEUEBOX_SOURCES_RAB_AGGREGATEIDPATH":    "$.k",
		"QUEUEBOX_SOURCES_RAB_TOPIC":              "rab.in",
		"QUEUEBOX_SOURCES_RAB_PREFETCHCOUNT":      "10",
	}
	return Scenario{
		Name:    "3 brokers, NATS restart and cut connections",
		Roles:   []string{"deliver", "deliver", "ingest", "relay"},
		Sources: brokerSources,
		Choices: []Step{{Kind: "restart", Role: "nats-server"}, {Kind: "cut", Role: "nats"},
			{Kind: "cut", Role: "rabbitmq"}, {Kind: "kill", Role: "ingest"}},
		Lease: 3 * time.Second,
		Env:   func(string) map[string]string { return env },
		Inject: func(r *Run, s Step) {
			switch {
			case s.Kind == "restart":
				end := r.Ledger.Fault("restart (kill -9) nats-server", "")
				nats.Kill(r.T)
				nats.Start(r.T)
				end()
			case s.Kind == "cut" && s.Role == "nats":
				r.Ledger.Fault("cut NATS connections", "")
				natsProxy.Cut()
			case s.Kind == "cut" && s.Role == "rabbitmq":
				r.Ledger.Fault("cut RabbitMQ connections", "")
				rabbitProxy.Cut()
			default:
				r.T.Fatalf("no injector for %s %s", s.Kind, s.Role)
			}
		},
	}
}

// sharedRabbit is the URL of the shared RabbitMQ and its host:port.
func sharedRabbit(t testing.TB) (string, string) {
	t.Helper()
	raw := os.Getenv("QUEUEBOX_TEST_RABBITMQ_URL")
	if raw == "" {
		raw = "amqp://guest:guest@127.0.0.1:5672/"
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("QUEUEBOX_TEST_RABBITMQ_URL=%q: %v", raw, err)
	}
	return raw, u.Host
}

// declareRabbit declares a durable topic exchange and a durable queue
// bound to it for every routing key, both with unique names, and deletes
// them when the test ends.
func declareRabbit(t testing.TB, rabbitURL string) (exchange, queue string) {
	t.Helper()
	conn, err := amqp.Dial(rabbitURL)
	if err != nil {
		t.Fatalf("connect to RabbitMQ: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("qbchaos.%d", time.Now().UnixNano())
	exchange, queue = name+".x", name+".q"
	if err := ch.ExchangeDeclare(exchange, "topic", true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.ExchangeDelete(exchange, false, false) })
	if _, err := ch.QueueDeclare(queue, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = ch.QueueDelete(queue, false, false, false) })
	if err := ch.QueueBind(queue, "#", exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	return exchange, queue
}
