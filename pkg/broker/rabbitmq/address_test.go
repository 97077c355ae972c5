package rabbitmq_test

import (
	"errors"
	"strings"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// exists reports whether the broker holds the exchange, by a passive
// declaration on a channel of its own.
func (a *admin) exists(exchange string) bool {
	ch := a.channel()
	defer func() { _ = ch.Close() }()
	err := ch.ExchangeDeclarePassive(exchange, "topic", true, false, false, false, nil)
	var aerr *amqp.Error
	if err != nil && !(errors.As(err, &aerr) && aerr.Code == amqp.NotFound) {
		a.t.Fatalf("check the exchange %s: %v", exchange, err)
	}
	return err == nil
}

// A row chooses its exchange through exchangeFrom or a template: an
// exchange that RabbitMQ keeps for itself (amq.…), one that does not exist
// and a routing key past the AMQP limit are undeliverable (the row goes
// dead at once), the publisher creates no exchange, and a publish of
// another row on the same connection still goes through.
func TestPublishRefusesARenderedExchangeThatIsReservedOrMissing(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	exchange, queue := name(t, "x"), name(t, "q")
	a.exchange(exchange, "topic")
	a.queue(queue, exchange, "#")
	p := newPublisher(t, rabbitmq.Options{Name: "events", Exchange: "ignored", ExchangeFrom: "topic",
		RoutingKeyTemplate: "{{ payload.key }}"})

	missing := name(t, "missing")
	for _, target := range []string{"amq.x", "amq.topic", missing} {
		m := row("order.m1")
		m.Topic = target
		err := p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{}`)})
		require.ErrorIs(t, err, queuebox.ErrUndeliverable, target)
		require.ErrorContains(t, err, "rabbitmq destination events")
		require.ErrorContains(t, err, target)
	}
	require.False(t, a.exists("amq.x"), "no exchange amq.x was created")
	require.False(t, a.exists(missing), "a rendered exchange is never declared")

	m := row("order.m2")
	m.Topic, m.Payload = exchange, []byte(`{"key":"`+strings.Repeat("k", 256)+`"}`)
	err := p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{}`)})
	require.ErrorIs(t, err, queuebox.ErrUndeliverable, "a routing key past 255 bytes")
	require.ErrorContains(t, err, "routing key")

	m = row("order.m3")
	m.Topic, m.Payload = exchange, []byte(`{"key":"order.created"}`)
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{}`)}),
		"the refused exchanges did not break the connection")
	require.Len(t, a.drain(queue), 1)
}
