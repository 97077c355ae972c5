package integration

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// deadLetterSQL returns the sql block of docs/dead-letters.md under
// heading that holds every marker, with the placeholders set: id for
// :message_id and :inbox_id, topic for :topic.
func deadLetterSQL(t *testing.T, heading, id, topic string, markers ...string) string {
	t.Helper()
	sql := fillPlaceholders(blockUnder(t, docsDeadLetters, "sql", heading, markers...), map[string]string{
		"message_id": "'" + id + "'", "inbox_id": "'" + id + "'", "topic": "'" + topic + "'", "limit": "10",
	})
	require.NotRegexp(t, placeholderLeft, sql, "a placeholder without a value")
	return sql
}

func rowID(t *testing.T, db database, where string) string {
	t.Helper()
	rows := psqlRows(t, db, "SELECT id FROM outbox WHERE "+where)
	require.Len(t, rows, 1, where)
	return rows[0][0]
}

// TestAuditTutorialDeadLettersOutbox makes dead rows the two usual ways
// (the ceiling and a topic without a route), runs every outbox block of
// docs/dead-letters.md on them, and checks that a requeue after the repair
// delivers.
func TestAuditTutorialDeadLettersOutbox(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	var broken atomic.Bool
	broken.Store(true)
	rc := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(brokertest.HTTPRequest) int {
		if broken.Load() {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}))

	deliver := startServing(t, "deliver", tutorialConfig(t, db, fmt.Sprintf(`
outbox:
  pollIntervalMs: 20
  retryBaseDelayMs: 1
destinations:
  orders:
    type: http
    baseUrl: %s
routes:
  - topicPattern: "order.*"
    destination: orders
`, rc.URL)))
	psqlExec(t, db, `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES
		('order.created', 'k1', '{"n":1}', 1), ('order.created', 'k2', '{"n":2}', 1), ('refund.created', NULL, '{"n":3}', 1)`)
	require.Eventually(t, func() bool {
		return psqlRows(t, db, `SELECT count(*) FROM outbox WHERE state = 'dead'`)[0][0] == "3"
	}, 30*time.Second, 20*time.Millisecond)
	waitSample(t, deliver, `queuebox_outbox_messages_total{status="dead"}`, func(v float64) bool { return v == 3 })

	k1 := rowID(t, db, "key = 'k1'")
	perTopic := deadLetterSQL(t, "Look at them", k1, "", "GROUP BY topic")
	require.Equal(t, [][]string{{"order.created", "2"}, {"refund.created", "1"}}, firstColumns(psqlRows(t, db, perTopic), 2))
	reasons := psqlRows(t, db, deadLetterSQL(t, "Look at them", k1, "", "AS reason"))
	require.Len(t, reasons, 2, "the ceiling and the missing route")
	newest := psqlRows(t, db, deadLetterSQL(t, "Look at them", k1, "", "ORDER BY updated_at DESC"))
	require.Len(t, newest, 3)
	for _, row := range newest {
		require.NotEmpty(t, row[7], "last_error holds the reason")
	}
	inFull := deadLetterSQL(t, "Look at them", k1, "", "payload, headers")
	one := psqlRows(t, db, inFull)
	require.Len(t, one, 1)
	require.Equal(t, []string{k1, "", "order.created", "k1", "orders", `{"n": 1}`, "{}", "1", "1"}, one[0][:9],
		"id, origin_id, topic, key, destination, payload, headers, attempt, max_attempts")
	require.Contains(t, one[0][11], "500")

	broken.Store(false)
	requeue := deadLetterSQL(t, "Requeue with SQL", k1, "", "UPDATE outbox", "WHERE id = :message_id")
	require.EqualValues(t, 1, psqlAffected(t, db, requeue))
	require.EqualValues(t, 0, psqlAffected(t, db, requeue), "a requeued row is no longer dead")
	check := deadLetterSQL(t, "Requeue with SQL", k1, "", "SELECT id, state")
	require.Eventually(t, func() bool { return psqlRows(t, db, check)[0][1] == "sent" }, 30*time.Second, 20*time.Millisecond)
	require.Equal(t, []string{"sent", "0"}, psqlRows(t, db, check)[0][1:3], "state, attempt")
	require.Equal(t, "", psqlRows(t, db, inFull)[0][11], "last_error cleared")
	last := rc.Requests()[len(rc.Requests())-1]
	require.Equal(t, k1, last.Header.Get("X-Message-Id"))
	require.Equal(t, "0", last.Header.Get("X-Attempt"))

	byTopic := deadLetterSQL(t, "Requeue with SQL", k1, "order.created", "UPDATE outbox", "topic = :topic")
	require.EqualValues(t, 1, psqlAffected(t, db, byTopic), "the other dead row of the topic")
	require.Eventually(t, func() bool {
		return psqlRows(t, db, `SELECT state FROM outbox WHERE key = 'k2'`)[0][0] == "sent"
	}, 30*time.Second, 20*time.Millisecond)

	refund := rowID(t, db, "topic = 'refund.created'")
	require.True(t, strings.HasPrefix(psqlRows(t, db, `SELECT last_error FROM outbox WHERE id = $1`, refund)[0][0], "No route matches topic"))
	require.EqualValues(t, 1, psqlAffected(t, db, deadLetterSQL(t, "Discard", refund, "", "DELETE FROM outbox")))
	require.Empty(t, psqlRows(t, db, `SELECT id FROM outbox WHERE id = $1`, refund))
}

// TestAuditTutorialDeadLettersInbox: a push row whose topic renders empty
// goes dead; the list of docs/dead-letters.md finds it; after the repair
// (a topic for the source) the page's requeue lets the relay forward it.
// The page's delete of a dead inbox row ends its deduplication.
func TestAuditTutorialDeadLettersInbox(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(db.env(),
		"QUEUEBOX_SOURCES_STRIPE_TYPE", "http", "QUEUEBOX_SOURCES_STRIPE_PATH", "/stripe",
		"QUEUEBOX_SOURCES_STRIPE_IDEMPOTENCYKEYPATH", "$.id", "QUEUEBOX_SOURCES_STRIPE_EVENTTYPEPATH", "$.type",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	ingest := startServing(t, "ingest", env)
	relay := startServing(t, "relay", env)
	for _, body := range []string{`{"id":"e1"}`, `{"id":"e2"}`} {
		code, resp, _ := post(t, ingest.url("/inbox/stripe"), body)
		require.Equal(t, http.StatusAccepted, code, resp)
	}
	require.Eventually(t, func() bool {
		return psqlRows(t, db, `SELECT count(*) FROM inbox WHERE state = 'dead'`)[0][0] == "2"
	}, 30*time.Second, 20*time.Millisecond)

	inboxID := func(key string) string {
		return psqlRows(t, db, `SELECT id FROM inbox WHERE idempotency_key = $1`, key)[0][0]
	}
	e1, e2 := inboxID("e1"), inboxID("e2")
	listed := psqlRows(t, db, deadLetterSQL(t, "Dead inbox rows", e1, "", "FROM inbox"))
	require.Len(t, listed, 2)
	for _, row := range listed {
		require.Equal(t, []string{"stripe", "push"}, row[1:3])
		require.Equal(t, "", row[4], "no event type")
		require.Contains(t, row[7], "rendered empty")
	}

	require.EqualValues(t, 1, psqlAffected(t, db, deadLetterSQL(t, "Discard", e2, "", "DELETE FROM inbox")))
	code, resp, _ := post(t, ingest.url("/inbox/stripe"), `{"id":"e2"}`)
	require.Equal(t, http.StatusAccepted, code, "a repeat of a deleted dead row is a new row: %s", resp)

	require.Equal(t, 0, relay.terminate(t, 30*time.Second))
	startServing(t, "relay", with(env, "QUEUEBOX_SOURCES_STRIPE_TOPIC", "stripe.unknown"))
	require.EqualValues(t, 1, psqlAffected(t, db, deadLetterSQL(t, "Dead inbox rows", e1, "", "UPDATE inbox")))
	require.Eventually(t, func() bool {
		return psqlRows(t, db, `SELECT state FROM inbox WHERE id = $1`, e1)[0][0] == "processed"
	}, 30*time.Second, 20*time.Millisecond)
	require.Equal(t, [][]string{{"stripe.unknown", "e1"}},
		psqlRows(t, db, `SELECT topic, headers->>'x-idempotency-key' FROM outbox WHERE headers->>'x-inbox-id' = $1`, e1))
}
