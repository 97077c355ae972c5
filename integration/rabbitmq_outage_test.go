package integration

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// The broker outages of these tests are cuts of every connection by a TCP
// proxy between the binary and the local RabbitMQ, with new connections
// refused for a while: what a broker restart looks like to a client,
// without restarting a broker that other tests share.

// cutFor cuts every connection through proxy and refuses new ones until
// the readiness of p reports the outage.
func cutFor(t *testing.T, proxy *brokertest.Proxy, p *process) {
	t.Helper()
	proxy.Refuse(true)
	proxy.Cut()
	p.waitHTTP(t, "/health/ready", http.StatusServiceUnavailable)
	proxy.Refuse(false)
}

// TestRabbitMQSourceLosesNothingAcrossOutages publishes a stream while
// the connection of queuebox-ingest is cut three times. The source shows
// down during each outage, reconnects, and the inbox holds every message
// exactly once.
func TestRabbitMQSourceLosesNothingAcrossOutages(t *testing.T) {
	t.Parallel()
	const n = 300
	db := newDatabase(t)
	r := newRabbit(t)
	queue := rabbitName("outage")
	r.queue(queue, "", "")
	proxy := brokertest.NewProxy(t, rabbitHost(t))
	p := startServing(t, "ingest", configEnv(t, db, rabbitSourceYAML(queue, rabbitVia(t, proxy.Addr()))))
	p.waitHTTP(t, "/health/ready", http.StatusOK)
	for i := range n {
		r.publish(queue, amqp.Publishing{Body: fmt.Appendf(nil, `{"messageId":"s-%d","type":"t"}`, i)})
		if i%100 == 50 {
			cutFor(t, proxy, p)
		}
	}
	require.Eventually(t, func() bool {
		rows, _ := inboxCount(t, db, "orders-queue")
		return rows == n && r.ready(queue) == 0
	}, 120*time.Second, 20*time.Millisecond)
	rows, keys := inboxCount(t, db, "orders-queue")
	require.Equal(t, n, rows)
	require.Equal(t, n, keys)
	p.waitHTTP(t, "/health/ready", http.StatusOK)
}

// TestRabbitMQDestinationLosesNothingAcrossOutages lets queuebox-deliver
// publish a backlog while its connection is cut twice. Every row ends
// sent, and the queue holds every row at least once.
func TestRabbitMQDestinationLosesNothingAcrossOutages(t *testing.T) {
	t.Parallel()
	const n = 200
	db := newDatabase(t)
	r := newRabbit(t)
	exchange, queue := rabbitName("events"), rabbitName("outage-out")
	r.queue(queue, exchange, "#")
	proxy := brokertest.NewProxy(t, rabbitHost(t))
	env := configEnv(t, db, fmt.Sprintf(`
destinations:
  events:
    type: rabbitmq
    url: %s
    exchange: %s
    timeoutMs: 5000
routes:
  - topicPattern: "**"
    destination: events
`, rabbitVia(t, proxy.Addr()), exchange), "QUEUEBOX_OUTBOX_POLLINTERVALMS", "20",
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "10", "QUEUEBOX_OUTBOX_MAXATTEMPTS", "1000")
	startServing(t, "deliver", env)
	conn := db.connect(t)
	_, err := conn.Exec(context.Background(),
		`INSERT INTO outbox (topic, payload) SELECT 'order.' || g, '{}' FROM generate_series(1, $1) g`, n)
	require.NoError(t, err)
	sentRows := func() int {
		var c int
		require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE state = 'sent'`).Scan(&c))
		return c
	}
	for range 2 {
		before := sentRows()
		require.Eventually(t, func() bool { return sentRows() > before }, 60*time.Second, 5*time.Millisecond)
		proxy.Cut()
	}
	require.Eventually(t, func() bool { return sentRows() == n }, 120*time.Second, 20*time.Millisecond)
	var dead int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE state <> 'sent'`).Scan(&dead))
	require.Zero(t, dead)

	seen := map[string]bool{}
	for _, m := range r.drain(queue) {
		seen[m.MessageId] = true
	}
	rows, err := conn.Query(context.Background(), `SELECT id::text FROM outbox`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		require.True(t, seen[id], "row %s reached the queue", id)
	}
	require.NoError(t, rows.Err())
}
