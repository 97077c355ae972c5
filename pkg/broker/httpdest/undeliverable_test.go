package httpdest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/httpdest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// A row that no attempt can send fails as undeliverable, so the poller
// sends it dead at once, and nothing reaches the destination.
func TestPublishOfAnUnsendableRowIsUndeliverable(t *testing.T) {
	t.Parallel()
	tests := map[string]func(*queuebox.OutboxMessage){
		"topic with a control character": func(m *queuebox.OutboxMessage) { m.Topic = "order.\x01created" },
		"key with a line break":          func(m *queuebox.OutboxMessage) { m.Key, m.HasKey = "k\r\nX-Evil: 1", true },
		"row header value with NUL":      func(m *queuebox.OutboxMessage) { m.Headers = map[string]string{"x-trace": "a\x00b"} },
		"row header name with a space":   func(m *queuebox.OutboxMessage) { m.Headers = map[string]string{"x trace": "a"} },
		// A relayed row never sends a reserved name, but the check covers
		// every header a delivery may carry, so the row is still refused.
		"relayed row's reserved header with a line break": func(m *queuebox.OutboxMessage) {
			m.Headers = map[string]string{"x-inbox-id": "in-1", "x-topic": "a\r\nX-Evil: 1"}
		},
	}
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := brokertest.NewHTTPReceiver(t, nil)
			p := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: rec.URL})
			d := delivery("", 0)
			change(d.Message)
			err := p.Publish(t.Context(), d)
			require.ErrorIs(t, err, queuebox.ErrUndeliverable)
			require.Contains(t, err.Error(), "http destination orders")
			require.Empty(t, rec.Requests())
		})
	}
}
