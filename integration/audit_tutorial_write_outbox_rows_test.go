package integration

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// writeRowsPage is the how-to of docs/ for the application's insert.
const writeRowsPage = "tutorials/write-outbox-rows.md"

// ordersDestination routes order.** to the receiver with a static X-Tenant
// header that the row header of the page must win over; any other topic
// has no route.
func ordersDestination(url string) string {
	return fmt.Sprintf(`
outbox:
  pollIntervalMs: 20
  retryBaseDelayMs: 1
destinations:
  orders:
    type: http
    baseUrl: %s
    path: /events
    headers:
      X-Tenant: static
routes:
  - topicPattern: "order.**"
    destination: orders
`, url)
}

// byTopicAndKey indexes deliveries by "topic/key" in arrival order.
func byTopicAndKey(got []brokertest.HTTPRequest) map[string][]brokertest.HTTPRequest {
	out := map[string][]brokertest.HTTPRequest{}
	for _, r := range got {
		k := r.Header.Get("X-Topic") + "/" + r.Header.Get("X-Message-Key")
		out[k] = append(out[k], r)
	}
	return out
}

// TestAuditTutorialWriteOutboxRows runs every PostgreSQL block of the page
// against the migrated schema while the poller delivers, then checks what
// the page says of each row: its headers, its key order, its delay and its
// retry ceiling.
func TestAuditTutorialWriteOutboxRows(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	startServing(t, "deliver", tutorialConfig(t, db, ordersDestination(rc.URL)))
	for _, b := range postgresSQL(t, writeRowsPage) {
		psqlExec(t, db, b.Text)
	}
	psqlExec(t, db, `INSERT INTO outbox (topic, payload) VALUES ('invoice.created', '{}'::jsonb);`)

	require.Eventually(t, func() bool {
		rows := psqlRows(t, db, `SELECT count(*) FROM outbox WHERE state = 'sent'`)
		return rows[0][0] == "5"
	}, 30*time.Second, 20*time.Millisecond)
	_, lastError := waitOutbox(t, db, "invoice.created", "dead")
	require.True(t, strings.HasPrefix(lastError, "No route matches topic"), lastError)

	got := byTopicAndKey(rc.Requests())
	created := got["order.created/cust-42"]
	require.Len(t, created, 1)
	require.Equal(t, []string{"acme"}, created[0].Header.Values("X-Tenant"), "the row header wins")
	require.Equal(t, "0", created[0].Header.Get("X-Attempt"))
	require.JSONEq(t, `{"orderId":"11111111-1111-1111-1111-111111111111","amount":99.99}`, created[0].Body)
	paid := got["order.paid/"]
	require.Len(t, paid, 1)
	require.NotContains(t, paid[0].Header, "X-Message-Key", "a row without key")
	require.Equal(t, []string{"static"}, paid[0].Header.Values("X-Tenant"))

	var steps []string
	for _, r := range rc.Requests() {
		if r.Header.Get("X-Message-Key") == "order-33333333" {
			steps = append(steps, r.Header.Get("X-Topic"))
		}
	}
	require.Equal(t, []string{"order.created", "order.paid"}, steps)

	require.Equal(t, [][]string{
		{"order.created", "cust-42", "order", `{"X-Tenant": "acme"}`, "5"},
		{"order.paid", "", "", "{}", "5"},
		{"order.created", "order-33333333", "order", "{}", "5"},
		{"order.paid", "order-33333333", "order", "{}", "5"},
		{"order.reminder", "", "", "{}", "10"},
	}, psqlRows(t, db, `SELECT topic, key, aggregate_type, headers, max_attempts FROM outbox
		WHERE topic LIKE 'order.%' ORDER BY sequence`))
	require.Equal(t, [][]string{{"t", "t"}}, psqlRows(t, db, `SELECT claimed_at >= scheduled_at,
		scheduled_at >= created_at + interval '5 seconds' FROM outbox WHERE topic = 'order.reminder'`),
		"the reminder is claimed only once its delay has passed")
	require.Equal(t, [][]string{{"2"}}, psqlRows(t, db, `SELECT count(*) FROM orders`))
}

// TestAuditTutorialWriteOutboxColumnRules: an explicit NULL for headers
// fails the insert, and the topic column holds 255 characters at most.
func TestAuditTutorialWriteOutboxColumnRules(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	startServing(t, "deliver", db.env())
	conn := db.connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, `INSERT INTO outbox (topic, payload, headers) VALUES ('order.created', '{}'::jsonb, NULL)`)
	require.ErrorContains(t, err, "23502", "headers is NOT NULL")
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, payload) VALUES ($1, '{}'::jsonb)`, strings.Repeat("t", 256))
	require.Error(t, err)
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, `INSERT INTO outbox (topic, payload) VALUES ($1, '{}'::jsonb)`, strings.Repeat("t", 255))
	require.NoError(t, err)
}

// TestAuditTutorialWriteOutboxFromGo runs the page's Go function shape:
// database/sql with the pgx driver, both inserts in one transaction, and
// the JSON columns passed as strings with a ::jsonb cast.
func TestAuditTutorialWriteOutboxFromGo(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	startServing(t, "deliver", tutorialConfig(t, db, ordersDestination(rc.URL)))
	psqlExec(t, db, postgresSQL(t, writeRowsPage)[0].Text)
	sqlDB, err := sql.Open("pgx", db.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sqlDB.Close() })

	ctx := context.Background()
	tx, err := sqlDB.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer tx.Rollback()
	orderID := "44444444-4444-4444-4444-444444444444"
	_, err = tx.ExecContext(ctx, "INSERT INTO orders (id, customer_id, amount) VALUES ($1, $2, $3)", orderID, "cust-42", 99.99)
	require.NoError(t, err)
	payload, err := json.Marshal(map[string]any{"orderId": orderID, "amount": 99.99})
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO outbox (topic, key, payload, headers, aggregate_type) VALUES ($1, $2, $3::jsonb, $4::jsonb, $5)`,
		"order.created", "cust-42", string(payload), `{"X-Tenant":"acme"}`, "order")
	require.NoError(t, err)
	require.NoError(t, tx.Commit())

	waitOutbox(t, db, "order.created", "sent")
	got := rc.Requests()
	require.Len(t, got, 1)
	require.Equal(t, string(payload), got[0].Body, "a compact object arrives as written")
	require.Equal(t, []string{"acme"}, got[0].Header.Values("X-Tenant"))
}

// TestAuditTutorialRetryCeiling: a row without max_attempts takes the
// column default of 5 even when outbox.maxAttempts says otherwise, a row's
// own value wins, X-Attempt counts the failures, and a retrying row holds
// back its key until it is dead. The outbox table reference fixes the
// count: a failure at attempt = max_attempts is the one that kills the
// row, so max_attempts 2 means three deliveries.
func TestAuditTutorialRetryCeiling(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(r brokertest.HTTPRequest) int {
		if strings.HasPrefix(r.Header.Get("X-Topic"), "order.failing") {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}))

	// Nine failures in a row would open the destination's circuit breaker
	// (on by default, five failures) and defer the rest for 30 s and more;
	// the page describes the retry ceiling alone, so the breaker is off.
	env := with(tutorialConfig(t, db, ordersDestination(rc.URL)), "QUEUEBOX_OUTBOX_MAXATTEMPTS", "7",
		"QUEUEBOX_DESTINATIONS_ORDERS_FLOWCONTROL_CIRCUITBREAKER_ENABLED", "false")
	startServing(t, "deliver", env)
	psqlExec(t, db, `
		INSERT INTO outbox (topic, key, payload) VALUES ('order.failing.default', 'k1', '{}'::jsonb);
		INSERT INTO outbox (topic, key, payload, max_attempts) VALUES ('order.failing.own', 'k2', '{}'::jsonb, 2);
		INSERT INTO outbox (topic, key, payload) VALUES ('order.after', 'k2', '{}'::jsonb);`)

	attempt, _ := waitOutbox(t, db, "order.failing.default", "dead")
	require.Equal(t, 5, attempt)
	attempt, lastError := waitOutbox(t, db, "order.failing.own", "dead")
	require.Equal(t, 2, attempt)
	require.Contains(t, lastError, "500")
	waitOutbox(t, db, "order.after", "sent")

	var k2 []string
	for _, r := range rc.Requests() {
		if r.Header.Get("X-Message-Key") == "k2" {
			k2 = append(k2, r.Header.Get("X-Topic")+"#"+r.Header.Get("X-Attempt"))
		}
	}
	require.Equal(t, []string{"order.failing.own#0", "order.failing.own#1", "order.failing.own#2", "order.after#0"}, k2,
		"the later row of the key waits for the retries, and the dead row releases it")
	require.Equal(t, [][]string{{"order.failing.default", "5"}, {"order.failing.own", "2"}},
		psqlRows(t, db, `SELECT topic, max_attempts FROM outbox WHERE state = 'dead' ORDER BY sequence`))
}

// TestAuditTutorialRelayedRowsCeiling: a row that the relay creates takes
// outbox.maxAttempts, and inbox.relay.maxAttempts overrides it.
func TestAuditTutorialRelayedRowsCeiling(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(db.env(), "QUEUEBOX_OUTBOX_MAXATTEMPTS", "7",
		"QUEUEBOX_SOURCES_HOOKS_TYPE", "http", "QUEUEBOX_SOURCES_HOOKS_PATH", "/hooks",
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH", "$.id", "QUEUEBOX_SOURCES_HOOKS_TOPIC", "hooks.in",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	ingest := startServing(t, "ingest", env)
	for i, override := range []string{"", "4"} {
		relayEnv := env
		if override != "" {
			relayEnv = with(env, "QUEUEBOX_INBOX_RELAY_MAXATTEMPTS", override)
		}
		relay := startServing(t, "relay", relayEnv)
		code, body, _ := post(t, ingest.url("/inbox/hooks"), fmt.Sprintf(`{"id":"h-%d"}`, i))
		require.Equal(t, http.StatusAccepted, code, body)
		require.Eventually(t, func() bool {
			return psqlRows(t, db, `SELECT count(*) FROM outbox`)[0][0] == fmt.Sprint(i+1)
		}, 30*time.Second, 20*time.Millisecond)
		require.Equal(t, 0, relay.terminate(t, 30*time.Second))
	}
	require.Equal(t, [][]string{{"h-0", "7"}, {"h-1", "4"}}, psqlRows(t, db,
		`SELECT headers->>'x-idempotency-key', max_attempts FROM outbox ORDER BY sequence`))
}
