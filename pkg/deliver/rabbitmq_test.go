package deliver_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

func rabbitURL() string {
	if u := os.Getenv("QUEUEBOX_TEST_RABBITMQ_URL"); u != "" {
		return u
	}
	return "amqp://guest:guest@127.0.0.1:5672/"
}

// rabbitPoller is a poller whose only destination is the RabbitMQ
// exchange.
func (e *env) rabbitPoller(t *testing.T, exchange string) *deliver.Poller {
	t.Helper()
	e.dests = map[string]deliver.DestinationSpec{"events": {Name: "events", Kind: "rabbitmq"}}
	e.routes = []deliver.RouteSpec{{TopicPattern: "order.*", Destinations: []string{"events"}}}
	p, err := rabbitmq.New(rabbitmq.Options{Name: "events", URL: rabbitURL(), Exchange: exchange, Timeout: 10 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return e.build(t, deliver.Options{Publishers: map[string]queuebox.Publisher{"events": p}, Redactor: redact.New(),
		Metrics: deliver.NewMetrics(prometheus.NewRegistry()), Logger: quiet()})
}

func TestAnUnroutableRabbitMQPublishRetriesThenGoesDead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "http://unused")
	exchange := fmt.Sprintf("qbtest.deliver.unroutable.%d", rand.Uint64())
	conn, err := amqp.Dial(rabbitURL())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ch.ExchangeDelete(exchange, false, false) })

	e.exec(t, `INSERT INTO outbox (topic, payload, max_attempts) VALUES ('order.created', '{"n":1}', 2)`)
	start(t, e.rabbitPoller(t, exchange))
	rows := e.waitStates(t, "dead")
	require.Equal(t, 2, rows[0].Attempt, "max_attempts = 2: three publishes, each returned")
	require.NotNil(t, rows[0].LastError)
	require.Contains(t, *rows[0].LastError, "basic.return 312 NO_ROUTE")
}

func TestARoutedRabbitMQPublishIsSentAfterTheConfirm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "http://unused")
	exchange := fmt.Sprintf("qbtest.deliver.routed.%d", rand.Uint64())
	queue := exchange + ".q"
	conn, err := amqp.Dial(rabbitURL())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	require.NoError(t, err)
	require.NoError(t, ch.ExchangeDeclare(exchange, "topic", true, false, false, false, nil))
	t.Cleanup(func() { _ = ch.ExchangeDelete(exchange, false, false) })
	_, err = ch.QueueDeclare(queue, true, false, false, false, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = ch.QueueDelete(queue, false, false, false) })
	require.NoError(t, ch.QueueBind(queue, "order.*", exchange, false, nil))

	e.exec(t, `INSERT INTO outbox (topic, key, payload, headers) VALUES ('order.created', 'k-1', '{"n":1}', '{"x-tenant":"acme"}')`)
	start(t, e.rabbitPoller(t, exchange))
	rows := e.waitStates(t, "sent")
	msg, ok, err := ch.Get(queue, true)
	require.NoError(t, err)
	require.True(t, ok, "sent means the broker confirmed it: the queue holds it")
	require.Equal(t, rows[0].ID, msg.MessageId)
	require.Equal(t, "order.created", msg.RoutingKey)
	require.Equal(t, amqp.Table{"x-topic": "order.created", "x-attempt": int32(0), "x-tenant": "acme"}, msg.Headers)
	require.JSONEq(t, `{"n":1}`, string(msg.Body))
}
