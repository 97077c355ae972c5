package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"
)

// rabbitURL is the local RabbitMQ, or QUEUEBOX_TEST_RABBITMQ_URL.
func rabbitURL() string {
	if u := os.Getenv("QUEUEBOX_TEST_RABBITMQ_URL"); u != "" {
		return u
	}
	return "amqp://guest:guest@127.0.0.1:5672/"
}

func rabbitHost(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(rabbitURL())
	require.NoError(t, err)
	return u.Host
}

// rabbitVia is the broker URL with its host replaced by addr (a proxy).
func rabbitVia(t *testing.T, addr string) string {
	t.Helper()
	u, err := url.Parse(rabbitURL())
	require.NoError(t, err)
	u.Host = addr
	return u.String()
}

// rabbit is the test's own connection to the broker.
type rabbit struct {
	t  *testing.T
	ch *amqp.Channel
}

func newRabbit(t *testing.T) *rabbit {
	t.Helper()
	conn, err := amqp.Dial(rabbitURL())
	require.NoError(t, err, "RabbitMQ (deploy/local/ensure-services.sh starts it)")
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	require.NoError(t, err)
	return &rabbit{t: t, ch: ch}
}

// rabbitName is a queue or exchange name no other test uses.
func rabbitName(what string) string {
	return fmt.Sprintf("qbit.%s.%d.%d", what, time.Now().UnixNano()%1e9, rand.Uint32())
}

// queue declares a durable queue, bound to exchange by key unless
// exchange is empty, and deletes both when the test ends.
func (r *rabbit) queue(name, exchange, key string) {
	_, err := r.ch.QueueDeclare(name, true, false, false, false, nil)
	require.NoError(r.t, err)
	r.t.Cleanup(func() { _, _ = r.ch.QueueDelete(name, false, false, false) })
	if exchange != "" {
		require.NoError(r.t, r.ch.ExchangeDeclare(exchange, "topic", true, false, false, false, nil))
		r.t.Cleanup(func() { _ = r.ch.ExchangeDelete(exchange, false, false) })
		require.NoError(r.t, r.ch.QueueBind(name, key, exchange, false, nil))
	}
}

func (r *rabbit) publish(queue string, msg amqp.Publishing) {
	msg.DeliveryMode = amqp.Persistent
	require.NoError(r.t, r.ch.PublishWithContext(context.Background(), "", queue, false, false, msg))
}

func (r *rabbit) ready(queue string) int {
	q, err := r.ch.QueueDeclarePassive(queue, true, false, false, false, nil)
	require.NoError(r.t, err)
	return q.Messages
}

// drain takes every message the queue holds now.
func (r *rabbit) drain(queue string) []amqp.Delivery {
	var out []amqp.Delivery
	for {
		d, ok, err := r.ch.Get(queue, true)
		require.NoError(r.t, err)
		if !ok {
			return out
		}
		out = append(out, d)
	}
}

// configEnv writes yaml as the configuration file and returns the
// environment of a binary that reads it.
func configEnv(t *testing.T, db database, yaml string, kv ...string) map[string]string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "queuebox.yml")
	require.NoError(t, os.WriteFile(file, []byte(yaml), 0o600))
	return with(db.env(), append([]string{"QUEUEBOX_CONFIG_FILE", file}, kv...)...)
}

// inboxCount returns the number of inbox rows of the source and the
// number of distinct idempotency keys among them.
func inboxCount(t *testing.T, db database, source string) (rows, keys int) {
	t.Helper()
	conn := db.connect(t)
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT count(*), count(DISTINCT idempotency_key) FROM inbox WHERE source = $1`, source).Scan(&rows, &keys))
	return rows, keys
}
