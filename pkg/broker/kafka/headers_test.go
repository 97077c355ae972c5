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
