package rabbitmq_test

import (
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func newPublisher(t *testing.T, opts rabbitmq.Options) *rabbitmq.Publisher {
	t.Helper()
	if opts.URL == "" {
		opts.URL = brokerURL()
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	p, err := rabbitmq.New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func row(topic string) *queuebox.OutboxMessage {
	return &queuebox.OutboxMessage{ID: "0190a1b2-0000-7000-8000-00000000000" + topic[len(topic)-1:], Topic: topic,
		Payload: []byte(`{"region":"eu","n":1}`), MaxAttempts: 5}
}

func TestPublishedMessageCarriesTheDocumentedPropertiesAndHeaders(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	exchange, queue := name(t, "x"), name(t, "q")
	p := newPublisher(t, rabbitmq.Options{Name: "events", Exchange: exchange,
		Headers: map[string]string{"X-Team": "orders", "x-static": "s"}})
	require.NoError(t, p.Connect(t.Context()), "Connect declares the literal exchange")
	a.queue(queue, exchange, "order.*")

	m := row("order.created1")
	m.Topic, m.Attempt, m.Key, m.HasKey = "order.created", 2, "k-1", true
	m.Headers = map[string]string{"x-team": "billing", "x-tenant": "acme"}
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{"delivered":true}`)}))

	got := a.drain(queue)
	require.Len(t, got, 1, "sent only after the confirm: the queue holds it when Publish returns")
	d := got[0]
	require.Equal(t, m.ID, d.MessageId)
	require.Equal(t, "application/json", d.ContentType)
	require.Equal(t, uint8(2), d.DeliveryMode)
	require.Equal(t, exchange, d.Exchange)
	require.Equal(t, "order.created", d.RoutingKey, "{{ topic }} by default")
	require.Equal(t, `{"delivered":true}`, string(d.Body))
	require.Equal(t, amqp.Table{"x-topic": "order.created", "x-attempt": int32(2), "x-team": "billing",
		"x-static": "s", "x-tenant": "acme"}, d.Headers)
}

func TestRoutingKeyTemplates(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	exchange, queue := name(t, "x"), name(t, "q")
	a.exchange(exchange, "topic")
	a.queue(queue, exchange, "#")
	p := newPublisher(t, rabbitmq.Options{Exchange: exchange, RoutingKeyTemplate: "dest.{{ topic }}",
		DeliveryMode: "transient"})
	route := "{{ payload.region }}.{{ payload.zone }}.{{ topic }}"
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: row("order.a1"), Body: []byte(`{}`)}))
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: row("order.a2"), Body: []byte(`{}`),
		RoutingKeyTemplate: &route, MissingFieldDefault: "none"}))
	got := a.drain(queue)
	require.Len(t, got, 2)
	require.Equal(t, "dest.order.a1", got[0].RoutingKey, "the destination template when the route sets none")
	require.Equal(t, "eu.none.order.a2", got[1].RoutingKey, "the route template wins")
	require.Equal(t, uint8(1), got[0].DeliveryMode)
}

func TestExchangeFromTheRow(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	base := name(t, "x")
	orders, invoices := base+".order", base+".invoice"
	q1, q2 := name(t, "q1"), name(t, "q2")
	p := newPublisher(t, rabbitmq.Options{Exchange: base + ".{{ aggregateType }}", ExchangeType: "direct"})
	first := row("order.created1")
	first.AggregateType = "order"
	second := row("invoice.paid2")
	second.AggregateType = "invoice"

	// A rendered exchange is never declared: one that does not exist
	// yet sends the row dead.
	require.ErrorIs(t, p.Publish(t.Context(), queuebox.Delivery{Message: first, Body: []byte(`{}`)}),
		queuebox.ErrUndeliverable)
	a.exchange(orders, "direct")
	a.exchange(invoices, "direct")
	require.Error(t, p.Publish(t.Context(), queuebox.Delivery{Message: first, Body: []byte(`{}`)}),
		"the exchange exists, but no queue is bound yet: unroutable")
	a.queue(q1, orders, "order.created1")
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: first, Body: []byte(`{}`)}))
	require.Error(t, p.Publish(t.Context(), queuebox.Delivery{Message: second, Body: []byte(`{}`)}))
	a.queue(q2, invoices, "invoice.paid2")
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: second, Body: []byte(`{}`)}))
	require.Len(t, a.drain(q1), 1)
	require.Len(t, a.drain(q2), 1)

	from := newPublisher(t, rabbitmq.Options{Exchange: "ignored", ExchangeFrom: "aggregate_type", ExchangeType: "direct"})
	second.AggregateType = invoices
	require.NoError(t, from.Publish(t.Context(), queuebox.Delivery{Message: second, Body: []byte(`{}`)}),
		"exchangeFrom wins over the template")
	require.Len(t, a.drain(q2), 1)
}

func TestAnEmptyExchangeFailsThePublish(t *testing.T) {
	t.Parallel()
	p := newPublisher(t, rabbitmq.Options{Exchange: "{{ payload.missing }}"})
	err := p.Publish(t.Context(), queuebox.Delivery{Message: row("order.e1"), Body: []byte(`{}`)})
	require.ErrorContains(t, err, "renders empty")
}

func TestTheNextPublishReconnectsAfterTheConnectionIsCut(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	exchange, queue := name(t, "x"), name(t, "q")
	a.exchange(exchange, "topic")
	a.queue(queue, exchange, "#")
	proxy := brokertest.NewProxy(t, brokerHost(t))
	p := newPublisher(t, rabbitmq.Options{URL: viaProxy(t, proxy.Addr()), Exchange: exchange})
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: row("order.r1"), Body: []byte(`{}`)}))
	proxy.Cut()
	eventually(t, func() bool {
		return p.Publish(t.Context(), queuebox.Delivery{Message: row("order.r2"), Body: []byte(`{}`)}) == nil
	}, "a publish after the cut succeeds on a new connection")
	got := a.drain(queue)
	require.GreaterOrEqual(t, len(got), 2)
	require.Equal(t, row("order.r1").ID, got[0].MessageId)
}

func TestADeletedExchangeFailsOnceThenIsDeclaredAgain(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	exchange, queue := name(t, "x"), name(t, "q")
	p := newPublisher(t, rabbitmq.Options{Exchange: exchange})
	require.NoError(t, p.Connect(t.Context()))
	a.queue(queue, exchange, "#")
	require.NoError(t, a.do(func(ch *amqp.Channel) error { return ch.ExchangeDelete(exchange, false, false) }))
	// The broker closes the channel with 404 after the frame was sent:
	// that publish fails, and a later one declares the exchange again.
	require.Error(t, p.Publish(t.Context(), queuebox.Delivery{Message: row("order.d1"), Body: []byte(`{}`)}))
	require.NoError(t, p.Connect(t.Context()))
	a.bind(queue, exchange, "#")
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: row("order.d2"), Body: []byte(`{}`)}))
	require.Len(t, a.drain(queue), 1)
}

// TestAChannelTheBrokerClosedDoesNotLeaveItsConnectionOpen: when the
// broker closes the confirm channel (a 404 on a deleted exchange) the
// connection stays up; the next publish dials a new one and must close
// the old, or every such error would leak a connection.
func TestAChannelTheBrokerClosedDoesNotLeaveItsConnectionOpen(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	exchange := name(t, "x")
	p := newPublisher(t, rabbitmq.Options{Exchange: exchange})
	require.NoError(t, p.Connect(t.Context()))
	require.NoError(t, a.do(func(ch *amqp.Channel) error { return ch.ExchangeDelete(exchange, false, false) }))
	require.Error(t, p.Publish(t.Context(), queuebox.Delivery{Message: row("order.l1"), Body: []byte(`{}`)}))
	old := rabbitmq.SessionConn(p)
	require.NotNil(t, old)
	require.NoError(t, p.Connect(t.Context()))
	require.NotSame(t, old, rabbitmq.SessionConn(p), "the next connect dials a new connection")
	eventually(t, old.IsClosed, "the connection of the closed channel is closed")
}

func TestErrorsNeverShowThePassword(t *testing.T) {
	t.Parallel()
	_, err := rabbitmq.New(rabbitmq.Options{URL: "http://guest:hunter2@127.0.0.1:5672/", Exchange: "x"})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "hunter2")
	require.Contains(t, err.Error(), "guest:***@")

	p := newPublisher(t, rabbitmq.Options{URL: viaProxyWithPassword(t, "hunter2"), Exchange: "x", Timeout: 5 * time.Second})
	err = p.Publish(t.Context(), queuebox.Delivery{Message: row("order.p1"), Body: []byte(`{}`)})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "hunter2")
}

// viaProxyWithPassword is the broker URL with a wrong password.
func viaProxyWithPassword(t *testing.T, pw string) string {
	t.Helper()
	return "amqp://guest:" + pw + "@" + brokerHost(t) + "/"
}
