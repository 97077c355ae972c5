package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"
)

// TestRabbitMQMessagesPastTheLimits: inbox.maxBodyBytes and the header
// cap of an inbox row bound a broker message as they bound an HTTP
// request. A message past either is one dead inbox row with a reason and
// a cut of what came, a header with a NUL is stored cleaned, and the
// queue ends empty: nothing is dropped, nothing comes again.
func TestRabbitMQMessagesPastTheLimits(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	r := newRabbit(t)
	queue := rabbitName("limits")
	r.queue(queue, "", "")
	p := startServing(t, "ingest", configEnv(t, db, rabbitSourceYAML(queue, rabbitURL()),
		"QUEUEBOX_INBOX_MAXBODYBYTES", "2048"))
	p.waitHTTP(t, "/health/ready", http.StatusOK)

	big := fmt.Appendf(nil, `{"messageId":"big","pad":%q}`, strings.Repeat("x", 1<<20))
	r.publish(queue, amqp.Publishing{Body: big, MessageId: "big-1"})
	many := amqp.Table{}
	for i := range 1500 {
		many[fmt.Sprintf("x-h-%04d", i)] = "v"
	}
	r.publish(queue, amqp.Publishing{Body: []byte(`{"messageId":"many","type":"t"}`), Headers: many})
	r.publish(queue, amqp.Publishing{Body: []byte(`{"messageId":"nul","type":"t"}`),
		Headers: amqp.Table{"x-tenant": "a\x00b", "x-region": []byte("eu\xff")}})
	require.Eventually(t, func() bool {
		rows, _ := inboxCount(t, db, "orders-queue")
		return rows == 3 && r.ready(queue) == 0
	}, 30*time.Second, 20*time.Millisecond, "three rows, and the queue is empty")

	requireCutDeadRow(t, db, "orders-queue", "big-1", big)

	conn := db.connect(t)
	var state, lastError string
	var headers int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT state, last_error,
		(SELECT count(*) FROM jsonb_object_keys(headers)) FROM inbox WHERE idempotency_key = 'many'`).
		Scan(&state, &lastError, &headers))
	require.Equal(t, "dead", state)
	require.Equal(t, "headers: Request headers exceed 64 headers; the row keeps those that fit", lastError)
	require.Equal(t, 64, headers)

	var stored string
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT state, headers::text FROM inbox
		WHERE idempotency_key = 'nul'`).Scan(&state, &stored))
	require.Equal(t, "pending", state)
	var h map[string]string
	require.NoError(t, json.Unmarshal([]byte(stored), &h))
	require.Equal(t, map[string]string{"x-tenant": "ab", "x-region": "base64:ZXX/"}, h)
}
