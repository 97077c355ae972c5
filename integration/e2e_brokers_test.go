package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// These tests chain the bridges through the three built binaries: a
// broker source feeds queuebox-ingest, queuebox-relay copies the inbox
// row into the outbox, and queuebox-deliver publishes it to another kind
// of destination.

// relayed is the one inbox row of a chain and the one outbox row that the
// relay made of it.
type relayed struct {
	InboxID, OutboxID, Topic string
}

// waitRelayed waits until every inbox row is processed and every outbox
// row sent, then requires one row in each and returns their identifiers.
func waitRelayed(t *testing.T, conn *pgx.Conn) relayed {
	t.Helper()
	var inbox, outbox int
	require.Eventually(t, func() bool {
		var done bool
		err := conn.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM inbox), (SELECT count(*) FROM outbox),
			coalesce((SELECT bool_and(state = 'processed') FROM inbox), false) AND
			coalesce((SELECT bool_and(state = 'sent') FROM outbox), false)`).Scan(&inbox, &outbox, &done)
		return err == nil && done // an error: the binaries migrate the schema at start
	}, 60*time.Second, 20*time.Millisecond, "the inbox row relayed and the outbox row sent")
	require.Equal(t, 1, inbox, "one inbox row")
	require.Equal(t, 1, outbox, "one outbox row")
	var r relayed
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT i.id::text, o.id::text, o.topic
		FROM inbox i, outbox o`).Scan(&r.InboxID, &r.OutboxID, &r.Topic))
	return r
}

// metricValue returns the sample of the series (name with its labels, as
// the exposition writes it) on the process, or -1 when the scrape fails or
// lacks it. It does not fail t, so a require.Eventually condition can call
// it.
func metricValue(p *process, series string) float64 {
	resp, err := http.Get(p.url("/metrics"))
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	scrape, err := io.ReadAll(resp.Body)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(scrape), "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			if v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
				return v
			}
		}
	}
	return -1
}

// TestRabbitMQToNATSEndToEnd: a message published to a RabbitMQ queue goes
// through ingest, relay and deliver to a NATS JetStream subject once, with
// the NATS destination headers, the relay headers and the payload. A
// second publish of the same message id is a duplicate: no new inbox row,
// no new outbox row, nothing new on the stream.
func TestRabbitMQToNATSEndToEnd(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	r := newRabbit(t)
	queue := rabbitName("e2e")
	r.queue(queue, "", "")
	s := newNATSStream(t, natstest.URL())
	env := configEnv(t, db, fmt.Sprintf(`
sources:
  orders-queue:
    type: rabbitmq
    queueName: %s
    connectionUrl: %s
    aggregateIdPath: $.orderId
    eventTypePath: $.type
    topic: "orders.{{ eventType }}"
    prefetchCount: 10
inbox:
  relay:
    pollIntervalMs: 20
outbox:
  pollIntervalMs: 20
destinations:
  stream:
    type: nats
    servers: %s
    subject: "%s.{{ topic }}"
routes:
  - topicPattern: "orders.**"
    destination: stream
`, queue, rabbitURL(), natstest.URL(), s.prefix))
	ingest := startServing(t, "ingest", env)
	ingest.waitHTTP(t, "/health/ready", http.StatusOK)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	body := `{"orderId":"o-1","type":"created","total":12}`
	msg := amqp.Publishing{MessageId: "rmq-1", Body: []byte(body), CorrelationId: "corr-1",
		Headers: amqp.Table{"x-tenant": "acme"}}
	r.publish(queue, msg)
	conn := db.connect(t)
	got := waitRelayed(t, conn)
	require.Equal(t, "orders.created", got.Topic)

	msgs := natstest.Messages(t, s.stream)
	require.Len(t, msgs, 1, "arrived once")
	m := msgs[0]
	require.Equal(t, s.prefix+".orders.created", m.Subject)
	require.JSONEq(t, body, string(m.Data))
	require.Equal(t, got.OutboxID, m.Header.Get("x-message-id"))
	require.Equal(t, "orders.created", m.Header.Get("x-topic"))
	require.Equal(t, "0", m.Header.Get("x-attempt"))
	require.Equal(t, got.InboxID, m.Header.Get("x-inbox-id"))
	require.Equal(t, "orders-queue", m.Header.Get("x-source"))
	require.Equal(t, "rmq-1", m.Header.Get("x-idempotency-key"), "the AMQP message id is the key")
	require.Equal(t, "corr-1", m.Header.Get("X-Correlation-Id"))
	require.Equal(t, "acme", m.Header.Get("x-tenant"))

	const duplicates = `queuebox_inbox_messages_total{status="duplicate"}`
	require.Equal(t, float64(0), metricValue(ingest, duplicates))
	r.publish(queue, msg)
	require.Eventually(t, func() bool {
		return metricValue(ingest, duplicates) == 1 && r.ready(queue) == 0
	}, 60*time.Second, 20*time.Millisecond, "the repeat counted as a duplicate")
	rows, _ := inboxCount(t, db, "orders-queue")
	require.Equal(t, 1, rows, "no new inbox row")
	var outbox int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox`).Scan(&outbox))
	require.Equal(t, 1, outbox, "no new outbox row")
	require.Len(t, natstest.Messages(t, s.stream), 1, "nothing new on the stream")
}

// TestKafkaToHTTPEndToEnd: a record on a Kafka topic goes through ingest,
// relay and deliver to an HTTP receiver once, with the HTTP destination
// headers, the relay headers and the value as the body; the group commits
// past the record.
func TestKafkaToHTTPEndToEnd(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	addr, topic := kafkaCluster(t, 1)
	cl := kafkatest.Client(t, addr)
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := with(destinationEnv(kafkaSourceEnv(db.env(), addr, topic), rc.URL),
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	ingest := startServing(t, "ingest", env)
	ingest.waitHTTP(t, "/health/ready", http.StatusOK)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	body := `{"id":"kaf-1","type":"order.created","n":3}`
	produceKafka(t, cl, topic, []byte("customer-1"), body, "x-tenant", "acme")
	conn := db.connect(t)
	got := waitRelayed(t, conn)
	require.Equal(t, "kaf.order.created", got.Topic)
	require.Eventually(t, func() bool {
		return kafkatest.Committed(t, addr, "queuebox-kaf", topic)[0] == 1
	}, 60*time.Second, 20*time.Millisecond, "the group committed the record")

	reqs := rc.Requests()
	require.Len(t, reqs, 1, "arrived once")
	req := reqs[0]
	require.Equal(t, http.MethodPost, req.Method)
	require.Equal(t, "/webhook", req.Path)
	require.JSONEq(t, body, req.Body)
	require.Equal(t, got.OutboxID, req.Header.Get("X-Message-Id"))
	require.Equal(t, "kaf.order.created", req.Header.Get("X-Topic"))
	require.Equal(t, "0", req.Header.Get("X-Attempt"))
	require.Equal(t, "customer-1", req.Header.Get("X-Message-Key"), "the record key is the aggregate id")
	require.Equal(t, got.InboxID, req.Header.Get("x-inbox-id"))
	require.Equal(t, "kaf", req.Header.Get("x-source"))
	require.Equal(t, "kaf-1", req.Header.Get("x-idempotency-key"))
	require.Equal(t, "acme", req.Header.Get("x-tenant"))
}

// TestNATSToKafkaEndToEnd: a NATS JetStream message goes through ingest,
// relay and deliver to a Kafka topic once, with the Kafka destination
// headers, the relay headers, the aggregate id as the record key and the
// body as the value; the durable consumer acknowledges the message.
func TestNATSToKafkaEndToEnd(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	s := newNATSStream(t, natstest.URL())
	addr, topic := kafkaCluster(t, 1)
	env := with(natsSourceEnv(db.env(), natstest.URL(), s),
		"QUEUEBOX_DESTINATIONS_EVENTS_TYPE", "kafka",
		"QUEUEBOX_DESTINATIONS_EVENTS_BOOTSTRAPSERVERS", addr,
		"QUEUEBOX_DESTINATIONS_EVENTS_TOPIC", topic,
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "jet.**",
		"QUEUEBOX_ROUTES_0_DESTINATION", "events",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	ingest := startServing(t, "ingest", env)
	ingest.waitHTTP(t, "/health/ready", http.StatusOK)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	body := `{"id":"jet-1","type":"order.shipped","customer":"c-9"}`
	s.publish(t, body, "X-Tenant", "acme")
	conn := db.connect(t)
	got := waitRelayed(t, conn)
	require.Equal(t, "jet.order.shipped", got.Topic)
	waitAcked(t, s, "queuebox-jet")

	recs := kafkatest.Records(t, addr, topic)
	require.Len(t, recs, 1, "arrived once")
	rec := recs[0]
	require.JSONEq(t, body, string(rec.Value))
	require.Equal(t, "c-9", string(rec.Key), "the aggregate id is the record key")
	require.Equal(t, []string{got.OutboxID}, kafkatest.Header(rec, "x-message-id"))
	require.Equal(t, []string{"jet.order.shipped"}, kafkatest.Header(rec, "x-topic"))
	require.Equal(t, []string{"0"}, kafkatest.Header(rec, "x-attempt"))
	require.Equal(t, []string{got.InboxID}, kafkatest.Header(rec, "x-inbox-id"))
	require.Equal(t, []string{"jet"}, kafkatest.Header(rec, "x-source"))
	require.Equal(t, []string{"jet-1"}, kafkatest.Header(rec, "x-idempotency-key"))
	require.Equal(t, []string{"acme"}, kafkatest.Header(rec, "x-tenant"))
}
