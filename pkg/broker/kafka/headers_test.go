package kafka

import (
	"testing"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestBuildHeadersPrecedence(t *testing.T) {
	t.Parallel()
	m := &queuebox.OutboxMessage{ID: "id-1", Topic: "order.created", Attempt: 3,
		Headers: map[string]string{"X-Tenant": "row", "x-topic": "row-topic", "traceparent": "tp"}}
	static := map[string]string{"x-tenant": "static", "X-Env": "prod"}
	got := buildHeaders(m, static)
	require.Equal(t, []ckafka.Header{
		{Key: "x-message-id", Value: []byte("id-1")},
		{Key: "x-topic", Value: []byte("order.created")},
		{Key: "x-attempt", Value: []byte("3")},
		// Then the others, in the order of their lower-case names.
		{Key: "traceparent", Value: []byte("tp")},
		{Key: "X-Env", Value: []byte("prod")},
		// A row header replaces the static header in any letter case.
		{Key: "X-Tenant", Value: []byte("row")},
		// A row header with a standard name is a second value, not a
		// replacement.
		{Key: "x-topic", Value: []byte("row-topic")},
	}, got)
}

// A relayed row (x-inbox-id: the relay marked it) can neither replace a
// static header nor add a second standard header, and hop-by-hop and
// forwarding headers never go out; the relay's own headers stay.
func TestRelayedRowCannotChooseTheHeaders(t *testing.T) {
	t.Parallel()
	m := &queuebox.OutboxMessage{ID: "row", Topic: "stripe.paid", Attempt: 1, Headers: map[string]string{
		"x-inbox-id": "in-1", "X-Message-Id": "forged", "x-api-key": "sender's",
		"Connection": "close", "X-Forwarded-For": "10.0.0.1", "x-tenant": "acme",
	}}
	got := map[string][]string{}
	for _, h := range buildHeaders(m, map[string]string{"X-Api-Key": "destination's"}) {
		got[h.Key] = append(got[h.Key], string(h.Value))
	}
	require.Equal(t, map[string][]string{
		"x-message-id": {"row"}, "x-topic": {"stripe.paid"}, "x-attempt": {"1"},
		"X-Api-Key": {"destination's"}, "x-inbox-id": {"in-1"}, "x-tenant": {"acme"},
	}, got)
}
