package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestWebhookReachesTheDestinationOnce runs ingest, relay and deliver: a
// webhook posted twice is stored once, forwarded once with the relay
// headers and delivered once; the inbox row ends processed and the outbox
// row sent. A pull source's row stays pending: the relay never claims it.
func TestWebhookReachesTheDestinationOnce(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_SOURCES_STRIPE_TYPE", "http",
		"QUEUEBOX_SOURCES_STRIPE_PATH", "/stripe",
		"QUEUEBOX_SOURCES_STRIPE_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_STRIPE_EVENTTYPEPATH", "$.type",
		"QUEUEBOX_SOURCES_STRIPE_AGGREGATEIDPATH", "$.customer",
		"QUEUEBOX_SOURCES_ORDERS_TYPE", "http",
		"QUEUEBOX_SOURCES_ORDERS_PATH", "/orders",
		"QUEUEBOX_SOURCES_ORDERS_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_ORDERS_CONSUMPTION", "pull",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	ingest := startServing(t, "ingest", env)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	body := `{"id":"evt_123","type":"payment.completed","customer":"cust-42"}`
	code, resp, header := post(t, ingest.url("/inbox/stripe"), body, "X-Correlation-Id", "corr-1", "X-Tenant", "acme")
	require.Equal(t, http.StatusAccepted, code, resp)
	var accepted struct{ MessageID string }
	require.NoError(t, json.Unmarshal([]byte(resp), &accepted))
	require.NotEmpty(t, accepted.MessageID)
	require.Equal(t, "corr-1", header.Get("X-Correlation-Id"))
	code, resp, _ = post(t, ingest.url("/inbox/stripe"), body)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"status":"duplicate"}`, resp)
	code, _, _ = post(t, ingest.url("/inbox/orders"), `{"id":"order-1","total":42}`)
	require.Equal(t, http.StatusAccepted, code)

	conn := db.connect(t)
	require.Eventually(t, func() bool {
		var state string
		err := conn.QueryRow(context.Background(), `SELECT state FROM outbox`).Scan(&state)
		return err == nil && state == "sent"
	}, 30*time.Second, 20*time.Millisecond)
	got := rc.Requests()
	require.Len(t, got, 1, "delivered once")
	r := got[0]
	require.JSONEq(t, body, r.Body)
	require.Equal(t, "payment.completed", r.Header.Get("X-Topic"))
	require.Equal(t, "cust-42", r.Header.Get("X-Message-Key"))
	require.Equal(t, accepted.MessageID, r.Header.Get("x-inbox-id"))
	require.Equal(t, "stripe", r.Header.Get("x-source"))
	require.Equal(t, "evt_123", r.Header.Get("x-idempotency-key"))
	require.Equal(t, "corr-1", r.Header.Get("X-Correlation-Id"))
	require.Equal(t, "acme", r.Header.Get("X-Tenant"))

	var inboxState, pullState string
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT state FROM inbox WHERE source = 'stripe'`).Scan(&inboxState))
	require.Equal(t, "processed", inboxState)
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT state FROM inbox WHERE source = 'orders'`).Scan(&pullState))
	require.Equal(t, "pending", pullState, "the relay never claims a pull row")
	var outboxRows int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox`).Scan(&outboxRows))
	require.Equal(t, 1, outboxRows)
}
