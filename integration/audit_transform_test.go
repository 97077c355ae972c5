package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestAuditTransformRefusesAnExpressionThatDoesNotCompile: a route or a
// destination expression that does not compile, or an onError in the
// wrong letter case, stops the start, and the error names each key.
func TestAuditTransformRefusesAnExpressionThatDoesNotCompile(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := deliverConfig(t, db, `
destinations:
  partner:
    type: http
    baseUrl: http://127.0.0.1:9
    transform:
      expression: '{ "data": $ '
routes:
  - topicPattern: "order.*"
    destination: partner
    transform:
      expression: '$sum('
  - topicPattern: "invoice.*"
    destination: partner
    transform:
      expression: '$'
      onError: fail
`)
	p := start(t, "deliver", env)
	require.Equal(t, 2, p.wait(t, 30*time.Second))
	line := stderrLine(t, p)
	require.Contains(t, line, "destinations.partner.transform.expression")
	require.Contains(t, line, "routes[0].transform.expression")
	require.Contains(t, line, "routes[1].transform.onError")
}

// TestAuditTransformEnvelopeAndRouteReshape: the route stage reshapes the
// outbox payload, the destination stage wraps the route output with the
// context variables of the row, the source-only variables are unbound, and
// the row keeps its payload.
func TestAuditTransformEnvelopeAndRouteReshape(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	startServing(t, "deliver", deliverConfig(t, db, fmt.Sprintf(`
destinations:
  partner-api:
    type: http
    baseUrl: %s
    path: /events
    transform:
      expression: '{ "id": $messageId, "type": $topic, "attempt": $attempt, "at": $timestamp, "data": $,
        "unbound": [$source, $headers, $idempotencyKey, $eventType] }'
routes:
  - topicPattern: "order.*"
    destination: partner-api
    transform:
      expression: '{ "orderId": id, "customer": customer.name, "total": items.(price * quantity) ~> $sum() }'
      timeoutMs: 150
      onError: Fail
`, rc.URL)))
	conn := db.connect(t)
	var id, createdAt string
	require.NoError(t, conn.QueryRow(context.Background(), `INSERT INTO outbox (topic, payload)
		VALUES ('order.created', '{"id":"1001","customer":{"name":"Ada"},"items":[{"price":10,"quantity":2},{"price":5,"quantity":3}]}')
		RETURNING id::text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')`).Scan(&id, &createdAt))
	waitOutbox(t, db, "order.created", "sent")
	got := rc.Requests()
	require.Len(t, got, 1)
	require.JSONEq(t, fmt.Sprintf(`{"id":%q,"type":"order.created","attempt":0,"at":%q,
		"data":{"orderId":"1001","customer":"Ada","total":35},"unbound":[]}`, id, timestampOf(t, got[0].Body)), got[0].Body)
	require.Contains(t, timestampOf(t, got[0].Body), createdAt, "$timestamp is the created_at of the row")
	var payload string
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT payload::text FROM outbox WHERE id = $1`, id).Scan(&payload))
	require.Contains(t, payload, `"items"`, "the row keeps its payload")
}

// TestAuditTransformErrorStrategies: Fail retries with an attempt, Dead
// ends the row at once, Skip on a route sends the outbox payload without
// the destination stage; each failure counts under its strategy.
func TestAuditTransformErrorStrategies(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	p := startServing(t, "deliver", deliverConfig(t, db, fmt.Sprintf(`
destinations:
  plain:
    type: http
    baseUrl: %[1]s
  wrapped:
    type: http
    baseUrl: %[1]s
    transform:
      expression: '{ "wrapped": $ }'
routes:
  - topicPattern: "fail.*"
    destination: plain
    transform:
      expression: '$error("bad fail")'
  - topicPattern: "dead.*"
    destination: plain
    transform:
      expression: '($f := function($n){ $f($n+1) }; $f(0))'
      timeoutMs: 20
      onError: Dead
  - topicPattern: "skip.*"
    destination: wrapped
    transform:
      expression: '$error("bad skip")'
      onError: Skip
`, rc.URL)))
	conn := db.connect(t)
	_, err := conn.Exec(context.Background(), `INSERT INTO outbox (topic, payload, max_attempts) VALUES
		('fail.one', '{"n":1}', 1), ('dead.one', '{"n":2}', 5), ('skip.one', '{"n":3}', 5)`)
	require.NoError(t, err)

	attempt, lastError := waitOutbox(t, db, "fail.one", "dead")
	require.Equal(t, 1, attempt, "Fail counts an attempt before the ceiling")
	require.Contains(t, lastError, "Transform failed: routes[0].transform: ")
	require.Contains(t, lastError, "bad fail")

	attempt, lastError = waitOutbox(t, db, "dead.one", "dead")
	require.Equal(t, 0, attempt, "Dead ends the row at once")
	require.Contains(t, lastError, "Transform failed: routes[1].transform: the evaluation ran past timeoutMs (20 ms)")

	waitOutbox(t, db, "skip.one", "sent")
	got := rc.Requests()
	require.Len(t, got, 1, "only the skipped row reaches a destination")
	require.JSONEq(t, `{"n":3}`, got[0].Body, "a skipped route stage sends the payload, without the destination stage")

	_, scrape := get(t, p.url("/metrics"))
	require.Equal(t, 2.0, sample(t, scrape, `queuebox_transform_failures_total{strategy="Fail"}`))
	require.Equal(t, 1.0, sample(t, scrape, `queuebox_transform_failures_total{strategy="Dead"}`))
	require.Equal(t, 1.0, sample(t, scrape, `queuebox_transform_failures_total{strategy="Skip"}`))
}

// timestampOf returns the "at" field of a delivered envelope.
func timestampOf(t *testing.T, body string) string {
	t.Helper()
	var v struct {
		At string `json:"at"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &v))
	_, err := time.Parse(time.RFC3339Nano, v.At)
	require.NoError(t, err, "ISO-8601 text")
	return v.At
}
