package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"
)

func rabbitSourceYAML(queue, url string) string {
	return fmt.Sprintf(`
sources:
  orders-queue:
    type: rabbitmq
    queueName: %s
    connectionUrl: %s
    idempotencyKeyPath: $.messageId
    aggregateIdPath: $.orderId
    eventTypePath: $.type
    topic: "orders.{{ eventType }}"
    prefetchCount: 10
`, queue, url)
}

// TestRabbitMQQueueToInbox publishes to a queue that queuebox-ingest
// consumes: each message becomes one inbox row with the documented
// columns, a repeat stays one row, and the source shows in readiness.
func TestRabbitMQQueueToInbox(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	r := newRabbit(t)
	queue := rabbitName("in")
	r.queue(queue, "", "")
	p := startServing(t, "ingest", configEnv(t, db, rabbitSourceYAML(queue, rabbitURL())))
	p.waitHTTP(t, "/health/ready", http.StatusOK)
	_, body := get(t, p.url("/health/ready"))
	require.Contains(t, body, `"rabbitmq.orders-queue":{"status":"up"}`)

	msg := amqp.Publishing{Body: []byte(`{"messageId":"m-1","orderId":"o-1","type":"created"}`),
		CorrelationId: "corr-1", Headers: amqp.Table{"x-tenant": "acme", "x-n": int32(7)}}
	r.publish(queue, msg)
	r.publish(queue, msg)
	r.publish(queue, amqp.Publishing{Body: []byte(`not json`), MessageId: "raw-1"})
	conn := db.connect(t)
	require.Eventually(t, func() bool {
		rows, _ := inboxCount(t, db, "orders-queue")
		return rows == 2 && r.ready(queue) == 0
	}, 30*time.Second, 20*time.Millisecond)

	var key, agg, event, state, corr, headers, payload string
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT idempotency_key, aggregate_id, event_type, state,
		correlation_id, headers::text, payload::text FROM inbox WHERE idempotency_key = 'm-1'`).
		Scan(&key, &agg, &event, &state, &corr, &headers, &payload))
	require.Equal(t, []string{"o-1", "created", "pending", "corr-1"}, []string{agg, event, state, corr})
	require.JSONEq(t, `{"x-tenant":"acme","x-n":"7"}`, headers)
	require.JSONEq(t, string(msg.Body), payload)
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT state, payload::text FROM inbox WHERE idempotency_key = 'raw-1'`).Scan(&state, &payload))
	require.Equal(t, "dead", state)
	require.JSONEq(t, `{"raw":"not json"}`, payload)
}

// TestRabbitMQMissingQueueStopsOnlyTheSource: queuebox-ingest keeps
// running with a source whose queue does not exist; the source is down
// with a reason that names the queue, and no password shows.
func TestRabbitMQMissingQueueStopsOnlyTheSource(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	queue := rabbitName("missing")
	p := startServing(t, "ingest", configEnv(t, db, rabbitSourceYAML(queue, "amqp://guest:guest@"+rabbitHost(t)+"/")))
	require.Eventually(t, func() bool {
		code, status, reason := componentError(t, p, "rabbitmq.orders-queue")
		return code == http.StatusServiceUnavailable && status == "down" && strings.Contains(reason, queue)
	}, 60*time.Second, 50*time.Millisecond, "the source is down with the queue's name")
	require.Eventually(t, func() bool { return strings.Contains(p.out.String(), queue) }, 30*time.Second, 50*time.Millisecond)
	_, body := get(t, p.url("/health/ready"))
	require.NotContains(t, p.out.String()+body, "guest:guest@", "the password is masked")
}

// TestOutboxToRabbitMQ inserts outbox rows that queuebox-deliver publishes
// to an exchange: each reaches the bound queue with the documented
// properties and headers, and the row is sent.
func TestOutboxToRabbitMQ(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	r := newRabbit(t)
	exchange, queue := rabbitName("events"), rabbitName("out")
	r.queue(queue, exchange, "eu.order.*")
	env := configEnv(t, db, fmt.Sprintf(`
destinations:
  events-exchange:
    type: rabbitmq
    url: %s
    exchange: %s
    exchangeType: topic
    deliveryMode: persistent
    headers:
      x-team: orders
routes:
  - topicPattern: "order.**"
    destination: events-exchange
    routingKeyTemplate: "{{ payload.region }}.{{ topic }}"
`, rabbitURL(), exchange), "QUEUEBOX_OUTBOX_POLLINTERVALMS", "20")
	startServing(t, "deliver", env)
	conn := db.connect(t)
	var id string
	require.NoError(t, conn.QueryRow(context.Background(), `INSERT INTO outbox (topic, key, payload, headers)
		VALUES ('order.created', 'o-1', '{"region":"eu","n":1}', '{"x-tenant":"acme"}') RETURNING id::text`).Scan(&id))
	waitOutbox(t, db, "order.created", "sent")
	got := r.drain(queue)
	require.Len(t, got, 1)
	m := got[0]
	require.Equal(t, id, m.MessageId)
	require.Equal(t, "application/json", m.ContentType)
	require.Equal(t, uint8(2), m.DeliveryMode)
	require.Equal(t, "eu.order.created", m.RoutingKey)
	require.Equal(t, amqp.Table{"x-topic": "order.created", "x-attempt": int32(0), "x-team": "orders",
		"x-tenant": "acme"}, m.Headers)
	var body map[string]any
	require.NoError(t, json.Unmarshal(m.Body, &body))
	require.Equal(t, "eu", body["region"])
}

// TestRabbitMQIngestKilledMidStream kills queuebox-ingest with SIGKILL
// while it consumes a backlog; a second process finishes it. Every
// message is stored exactly once and the queue ends empty.
func TestRabbitMQIngestKilledMidStream(t *testing.T) {
	t.Parallel()
	const n = 300
	db := newDatabase(t)
	r := newRabbit(t)
	queue := rabbitName("kill")
	r.queue(queue, "", "")
	for i := range n {
		r.publish(queue, amqp.Publishing{Body: fmt.Appendf(nil, `{"messageId":"k-%d","orderId":"o-%d","type":"t"}`, i, i%7)})
	}
	env := configEnv(t, db, rabbitSourceYAML(queue, rabbitURL()))
	first := startServing(t, "ingest", env)
	require.Eventually(t, func() bool { rows, _ := inboxCount(t, db, "orders-queue"); return rows >= 20 },
		60*time.Second, 5*time.Millisecond)
	first.kill()
	rows, _ := inboxCount(t, db, "orders-queue")
	t.Logf("killed after %d of %d rows", rows, n)

	startServing(t, "ingest", env)
	require.Eventually(t, func() bool {
		rows, _ := inboxCount(t, db, "orders-queue")
		return rows == n && r.ready(queue) == 0
	}, 120*time.Second, 20*time.Millisecond)
	rows, keys := inboxCount(t, db, "orders-queue")
	require.Equal(t, n, rows)
	require.Equal(t, n, keys)
}
