package rabbitmq

import (
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestPublishingCarriesThePropertiesOfPage26(t *testing.T) {
	t.Parallel()
	m := &queuebox.OutboxMessage{ID: "0190-row", Topic: "order.created", Key: "k-1", HasKey: true, Attempt: 3}
	got := publishing(queuebox.Delivery{Message: m, Body: []byte(`{"a":1}`)}, nil, amqp.Persistent)
	require.Equal(t, "0190-row", got.MessageId)
	require.Equal(t, "application/json", got.ContentType)
	require.Equal(t, uint8(2), got.DeliveryMode)
	require.Equal(t, `{"a":1}`, string(got.Body))
	require.Equal(t, amqp.Table{"x-topic": "order.created", "x-attempt": int32(3)}, got.Headers,
		"no key header: a RabbitMQ message carries the key in its routing key only")
	require.Equal(t, uint8(1), publishing(queuebox.Delivery{Message: m}, nil, amqp.Transient).DeliveryMode)
}

func TestHeaderPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		static, row map[string]string
		want        amqp.Table
	}{
		{name: "static and row headers travel",
			static: map[string]string{"X-Team": "orders"}, row: map[string]string{"x-tenant": "acme"},
			want: amqp.Table{"X-Team": "orders", "x-tenant": "acme"}},
		{name: "a row header wins over a static header in any letter case",
			static: map[string]string{"X-Team": "orders"}, row: map[string]string{"x-team": "billing"},
			want: amqp.Table{"x-team": "billing"}},
		{name: "the same name wins exactly",
			static: map[string]string{"x-team": "orders"}, row: map[string]string{"x-team": "billing"},
			want: amqp.Table{"x-team": "billing"}},
		{name: "a standard header keeps its value",
			static: map[string]string{"x-topic": "static"}, row: map[string]string{"x-attempt": "99"},
			want: amqp.Table{}},
		{name: "a standard name in another letter case travels beside it",
			row:  map[string]string{"X-Topic": "mine"},
			want: amqp.Table{"X-Topic": "mine"}},
		{name: "relay headers travel as they are",
			row:  map[string]string{"x-inbox-id": "i-1", "x-source": "orders", "x-idempotency-key": "k", "X-Correlation-Id": "c"},
			want: amqp.Table{"x-inbox-id": "i-1", "x-source": "orders", "x-idempotency-key": "k", "X-Correlation-Id": "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := &queuebox.OutboxMessage{ID: "id", Topic: "order.created", Attempt: 1, Headers: tt.row}
			want := amqp.Table{"x-topic": "order.created", "x-attempt": int32(1)}
			for k, v := range tt.want {
				want[k] = v
			}
			require.Equal(t, want, headerTable(m, tt.static))
		})
	}
}

func TestAttemptIsAnInteger(t *testing.T) {
	t.Parallel()
	require.Equal(t, int32(0), attemptValue(0))
	require.Equal(t, int64(1<<40), attemptValue(1<<40), "never cut to 32 bits")
}

// A relayed row (x-inbox-id: the relay marked it) carries what a webhook
// sender sent: it can neither replace a static header nor travel beside a
// standard one, and hop-by-hop and forwarding headers never go out. The
// relay's own headers stay.
func TestRelayedRowCannotChooseTheHeaders(t *testing.T) {
	t.Parallel()
	m := &queuebox.OutboxMessage{ID: "row", Topic: "stripe.paid", Attempt: 1, Headers: map[string]string{
		"x-inbox-id": "in-1", "x-source": "stripe", "X-Topic": "forged", "x-api-key": "sender's",
		"Connection": "close", "X-Forwarded-For": "10.0.0.1", "x-tenant": "acme",
	}}
	got := headerTable(m, map[string]string{"X-Api-Key": "destination's"})
	require.Equal(t, amqp.Table{
		"x-topic": "stripe.paid", "x-attempt": int32(1), "X-Api-Key": "destination's",
		"x-inbox-id": "in-1", "x-source": "stripe", "x-tenant": "acme",
	}, got)
}
