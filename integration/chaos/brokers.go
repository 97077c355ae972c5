package chaos

import (
	"fmt"
	"net/url"
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

// BrokerRate is the pace of scenario 3's producer, in messages a second.
// Unpaced, the first hop took all 100,000 rows at once, and the last
// hop's rows waited behind the middle hop's rows of their keys (per-key
// order spans topics), so 30 of a full run's 50 faults, scheduled by
// delivered count, fell after the last delivery and hit nothing in
// flight. Below what the hops deliver, every hop keeps up and the faults
// spread over the traffic.
const BrokerRate = 150

// BrokerScenario is scenario 3: every message crosses both brokers as a
// destination and as a source. The producer's outbox row goes to a NATS
// JetStream stream, ingest stores it in the inbox (source jet), relay
// routes it to a RabbitMQ exchange, ingest stores it again from the
// bound queue (source rab), and relay and deliver hand it to the
// recording receiver. Both brokers are private servers that the suite
// owns and restarts (the shared ones are never restarted), and every
// process reaches them through proxies the suite owns, which cut the
// connections.
func BrokerScenario(t *testing.T) Scenario {
	t.Helper()
	// A private cluster, as in scenarios 5 and 7: this machine's shared
	// server runs with autovacuum off, and a full run's 100,000 rows per
	// hop, each claimed, published and marked, left so many dead index
	// entries that a claim took seconds and the run crawled at a few
	// messages a second. Production runs autovacuum (the doctor warns
	// when it is off).
	pg := StartCluster(t)
	nats := natstest.StartServer(t)
	natsProxy := brokertest.NewProxy(t, strings.TrimPrefix(nats.URL, "nats://"))
	_, js := natstest.Connect(t, nats.URL)
	stream := natstest.StreamOn(t, js, "QBCHAOS_"+natstest.Suffix(), "qbchaos.>")

	rabbit := StartRabbit(t)
	exchange, queue := declareRabbit(t, rabbit.URL())
	rabbitProxy := brokertest.NewProxy(t, fmt.Sprintf("127.0.0.1:%d", rabbit.Port))
	viaProxy, _ := url.Parse(rabbit.URL())
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

		// With the breakers held shut (above), an outage spends a row's
		// attempts on the plain retry schedule, whose backoff doubles up
		// to a minute: five attempts last a few seconds at the suite's
		// base delay, shorter than a broker restart on a busy machine,
		// and the row would go dead. A hundred wait out any restart here,
		// so a dead row would be a finding, not the configuration.
		"QUEUEBOX_OUTBOX_MAXATTEMPTS": "100",

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
		Name:     "3 brokers, restarts and cut connections",
		Database: func(t testing.TB) *Database { return NewDatabase(t, pg.URL()) },
		Rate:     BrokerRate,
		Roles:    []string{"deliver", "deliver", "ingest", "relay"},
		Sources:  brokerSources,
		Choices: []Step{{Kind: "restart", Role: "nats"}, {Kind: "restart", Role: "rabbitmq"},
			{Kind: "cut", Role: "nats"}, {Kind: "cut", Role: "rabbitmq"}, {Kind: "kill", Role: "ingest"}},
		Lease: 3 * time.Second,
		Env:   func(string) map[string]string { return env },
		Inject: func(r *Run, s Step) {
			// An even pick stops the server cleanly, an odd one kills it.
			how, kill := "SIGTERM", s.Pick%2 == 1
			if kill {
				how = "kill -9"
			}
			switch {
			case s.Kind == "restart" && s.Role == "nats":
				end := r.Ledger.Fault("restart nats-server ("+how+")", "")
				if kill {
					nats.Kill(r.T)
				} else {
					nats.Stop(r.T)
				}
				nats.Start(r.T)
				end()
			case s.Kind == "restart" && s.Role == "rabbitmq":
				end := r.Ledger.Fault("restart rabbitmq ("+how+")", "")
				if kill {
					rabbit.Kill()
				} else {
					rabbit.Stop()
				}
				rabbit.Start()
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

// declareRabbit declares the durable topic exchange and the durable queue
// bound to it for every routing key on the private node; they go with
// the node's directory.
func declareRabbit(t testing.TB, rabbitURL string) (exchange, queue string) {
	t.Helper()
	conn, err := amqp.Dial(rabbitURL)
	if err != nil {
		t.Fatalf("connect to the private RabbitMQ node: %v", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	exchange, queue = "qbchaos.x", "qbchaos.q"
	if err := ch.ExchangeDeclare(exchange, "topic", true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDeclare(queue, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(queue, "#", exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	return exchange, queue
}
