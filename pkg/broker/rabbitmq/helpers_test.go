package rabbitmq_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
)

// brokerURL is the local RabbitMQ, or QUEUEBOX_TEST_RABBITMQ_URL.
func brokerURL() string {
	if u := os.Getenv("QUEUEBOX_TEST_RABBITMQ_URL"); u != "" {
		return u
	}
	return "amqp://guest:guest@127.0.0.1:5672/"
}

// viaProxy returns the broker URL with its host replaced by addr.
func viaProxy(t testing.TB, addr string) string {
	t.Helper()
	u, err := url.Parse(brokerURL())
	require.NoError(t, err)
	u.Host = addr
	return u.String()
}

func brokerHost(t testing.TB) string {
	t.Helper()
	u, err := url.Parse(brokerURL())
	require.NoError(t, err)
	return u.Host
}

// name returns a name no other test uses.
func name(t testing.TB, what string) string {
	clean := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	if len(clean) > 60 {
		clean = clean[len(clean)-60:]
	}
	return fmt.Sprintf("qbtest.%s.%s.%d", what, clean, rand.Uint64())
}

// admin is a direct connection of the test to the broker, for setting up
// and reading back exchanges and queues.
type admin struct {
	t    testing.TB
	conn *amqp.Connection
	mu   sync.Mutex
	ch   *amqp.Channel
}

func newAdmin(t testing.TB) *admin {
	t.Helper()
	conn, err := amqp.Dial(brokerURL())
	require.NoError(t, err, "RabbitMQ at %s (deploy/local/ensure-services.sh starts it)", brokerHost(t))
	a := &admin{t: t, conn: conn}
	a.ch = a.channel()
	t.Cleanup(func() { _ = conn.Close() })
	return a
}

func (a *admin) channel() *amqp.Channel {
	ch, err := a.conn.Channel()
	require.NoError(a.t, err)
	return ch
}

// do runs f on the admin channel, reopening the channel when an error of
// the broker closed it.
func (a *admin) do(f func(ch *amqp.Channel) error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ch.IsClosed() {
		a.ch = a.channel()
	}
	return f(a.ch)
}

// exchange declares a durable exchange and deletes it when the test ends.
func (a *admin) exchange(name, kind string) {
	require.NoError(a.t, a.do(func(ch *amqp.Channel) error {
		return ch.ExchangeDeclare(name, kind, true, false, false, false, nil)
	}))
	a.t.Cleanup(func() { _ = a.do(func(ch *amqp.Channel) error { return ch.ExchangeDelete(name, false, false) }) })
}

// queue declares a queue, bound to exchange by key when exchange is not
// empty, and deletes it when the test ends.
func (a *admin) queue(name, exchange, key string) {
	require.NoError(a.t, a.do(func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclare(name, true, false, false, false, nil)
		return err
	}))
	a.t.Cleanup(func() {
		_ = a.do(func(ch *amqp.Channel) error { _, err := ch.QueueDelete(name, false, false, false); return err })
	})
	if exchange != "" {
		a.bind(name, exchange, key)
	}
}

func (a *admin) bind(queue, exchange, key string) {
	require.NoError(a.t, a.do(func(ch *amqp.Channel) error { return ch.QueueBind(queue, key, exchange, false, nil) }))
}

func (a *admin) unbind(queue, exchange, key string) {
	require.NoError(a.t, a.do(func(ch *amqp.Channel) error { return ch.QueueUnbind(queue, key, exchange, nil) }))
}

// drain takes every message the queue holds now.
func (a *admin) drain(queue string) []amqp.Delivery {
	var out []amqp.Delivery
	require.NoError(a.t, a.do(func(ch *amqp.Channel) error {
		for {
			d, ok, err := ch.Get(queue, true)
			if err != nil || !ok {
				return err
			}
			out = append(out, d)
		}
	}))
	return out
}

// count returns the number of ready messages of the queue.
func (a *admin) count(queue string) int { return a.inspect(queue).Messages }

// inspect returns the ready messages and the consumers of the queue.
func (a *admin) inspect(queue string) amqp.Queue {
	var q amqp.Queue
	require.NoError(a.t, a.do(func(ch *amqp.Channel) error {
		var err error
		q, err = ch.QueueDeclarePassive(queue, true, false, false, false, nil)
		return err
	}))
	return q
}

// publish sends one message to the default exchange, straight to queue.
func (a *admin) publish(queue string, msg amqp.Publishing) {
	require.NoError(a.t, a.do(func(ch *amqp.Channel) error {
		return ch.PublishWithContext(a.t.Context(), "", queue, false, false, msg)
	}))
}

// rabbitDestination is the brokertest.Destination of one exchange: a
// queue bound to it with brokertest.#, read with basic.get. Reject
// unbinds the queue, so a publish is returned unroutable; Stall holds the
// broker's answers in a proxy.
type rabbitDestination struct {
	a               *admin
	exchange, queue string
	proxy           *brokertest.Proxy
	mu              sync.Mutex
	got             []brokertest.Message
	bound           bool
}

const testKey = "brokertest.#"

func newDestination(t *testing.T) (*rabbitDestination, string) {
	a := newAdmin(t)
	d := &rabbitDestination{a: a, exchange: name(t, "x"), queue: name(t, "q"), bound: true}
	a.exchange(d.exchange, "topic")
	a.queue(d.queue, d.exchange, testKey)
	d.proxy = brokertest.NewProxy(t, brokerHost(t))
	return d, viaProxy(t, d.proxy.Addr())
}

func (d *rabbitDestination) Received(t *testing.T) []brokertest.Message {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.a.drain(d.queue) {
		d.got = append(d.got, toMessage(t, m))
	}
	return append([]brokertest.Message(nil), d.got...)
}

func (d *rabbitDestination) Arrivals(t *testing.T) int { return len(d.Received(t)) }

func (d *rabbitDestination) SetFault(t *testing.T, f brokertest.Fault) {
	t.Helper()
	switch f {
	case brokertest.Healthy:
		d.proxy.Release()
		if !d.bound {
			d.a.bind(d.queue, d.exchange, testKey)
			d.bound = true
		}
	case brokertest.Reject:
		d.proxy.Release()
		if d.bound {
			d.a.unbind(d.queue, d.exchange, testKey)
			d.bound = false
		}
	case brokertest.Stall:
		d.proxy.Stall()
	default:
		t.Fatalf("unknown fault %d", f)
	}
}

func toMessage(t *testing.T, m amqp.Delivery) brokertest.Message {
	t.Helper()
	attempt, ok := m.Headers[rabbitmq.HeaderAttempt].(int32)
	require.True(t, ok, "x-attempt is an int32, got %T", m.Headers[rabbitmq.HeaderAttempt])
	topic, _ := m.Headers[rabbitmq.HeaderTopic].(string)
	h := map[string][]string{}
	for k, v := range rabbitmq.HeaderStrings(m.Headers) {
		h[k] = []string{v}
	}
	return brokertest.Message{ID: m.MessageId, Topic: topic, Attempt: int(attempt), Body: m.Body, Headers: h}
}

// eventually is require.Eventually with the bounds of this package.
func eventually(t testing.TB, cond func() bool, msg string, args ...any) {
	t.Helper()
	require.Eventually(t, cond, 30*time.Second, 10*time.Millisecond, append([]any{msg}, args...)...)
}
