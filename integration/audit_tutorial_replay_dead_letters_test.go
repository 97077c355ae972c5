package integration

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// replayPage is the how-to of docs/ for POST /admin/replay.
const replayPage = "tutorials/replay-dead-letters.md"

// replayDeliver starts queuebox-deliver with the page's admin fragment,
// its token read from a file as the fragment does, on a management port.
// The returned process points at the management port; data is the port
// of the inbox routes.
func replayDeliver(t *testing.T, db database, routes string) (p *process, token []string, data int) {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "queuebox-admin-token")
	require.NoError(t, os.WriteFile(secret, []byte("adm1n-t0ken-0123456789\n"), 0o600))
	admin := blockUnder(t, replayPage, "yaml", "Before you start", "admin:")
	admin = strings.ReplaceAll(admin, "file:/run/secrets/queuebox-admin-token", "file:"+secret)
	mgmt, data := freePort(t), freePort(t)
	env := with(tutorialConfig(t, db, admin+routes),
		"QUEUEBOX_SERVER_HTTPPORT", itoa(data), "QUEUEBOX_SERVER_MANAGEMENTPORT", itoa(mgmt),
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20")
	p = start(t, "deliver", env)
	p.port = mgmt
	p.waitHTTP(t, "/health/ready", http.StatusOK)
	return p, []string{"Authorization", "Bearer adm1n-t0ken-0123456789"}, data
}

// curlBody returns the -d argument of a curl block, joined as the shell
// joins its quoted lines.
func curlBody(t *testing.T, block string) string {
	t.Helper()
	at := strings.Index(block, "-d '")
	require.GreaterOrEqual(t, at, 0, block)
	rest := block[at+len("-d '"):]
	return rest[:strings.Index(rest, "'")]
}

// TestAuditTutorialReplayByID follows "Replay dead messages by id": the
// page's list query finds the two dead rows, the page's request moves
// them, and they reach sent with attempt and last_error reset, keeping
// their id, sequence, payload and headers.
func TestAuditTutorialReplayByID(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	p, token, _ := replayDeliver(t, db, fmt.Sprintf(`
destinations:
  orders-api:
    type: http
    baseUrl: %s
routes:
  - topicPattern: "order.*"
    destination: orders-api
`, rc.URL))
	psqlExec(t, db, `INSERT INTO outbox (id, topic, key, payload, headers, state, attempt, last_error) VALUES
		('3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10', 'order.created', 'k1', '{"n":1}', '{"X-Tenant":"acme"}', 'dead', 5, 'HTTP 503'),
		('9b7e5d2c-1a3f-4e8b-b6c4-0f1e2d3c4b5a', 'order.created', 'k2', '{"n":2}', '{}', 'dead', 5, 'HTTP 503')`)
	before := psqlRows(t, db, `SELECT id, sequence, payload, headers FROM outbox ORDER BY id`)

	steps := postgresSQL(t, replayPage)
	listed := psqlRows(t, db, steps[0].Text)
	require.Len(t, listed, 2)

	block := blockUnder(t, replayPage, "bash", "Replay dead messages by id")
	code, body, header := post(t, p.url("/admin/replay"), curlBody(t, block), token...)
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, header.Get("Content-Type"), "application/json")
	require.JSONEq(t, blockUnder(t, replayPage, "json", "Replay dead messages by id"), body)

	require.Eventually(t, func() bool {
		rows := psqlRows(t, db, steps[1].Text)
		return len(rows) == 2 && rows[0][1] == "sent" && rows[1][1] == "sent"
	}, 30*time.Second, 20*time.Millisecond)
	for _, row := range psqlRows(t, db, steps[1].Text) {
		require.Equal(t, []string{"sent", "0", ""}, row[1:], "attempt 0, last_error cleared")
	}
	require.Equal(t, before, psqlRows(t, db, `SELECT id, sequence, payload, headers FROM outbox ORDER BY id`))
	require.Len(t, rc.Requests(), 2)
}

// TestAuditTutorialReplayDestinationWindow follows "Replay everything for
// one destination in a time window" with the page's request: only the
// sent and dead rows of the topics that route to billing-service first,
// created inside the window, move.
func TestAuditTutorialReplayDestinationWindow(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	p, token, _ := replayDeliver(t, db, `
destinations:
  audit:
    type: http
    baseUrl: https://audit.invalid
  billing-service:
    type: http
    baseUrl: https://billing.invalid
routes:
  - topicPattern: "invoice.audit"
    destination: audit
  - topicPattern: "invoice.*"
    destination: billing-service
`)
	// Every row is scheduled far ahead once it moves, so the poller, whose
	// destinations do not exist, never touches what the test reads.
	psqlExec(t, db, `INSERT INTO outbox (topic, payload, state, created_at, attempt) VALUES
		('invoice.paid',   '{"n":1}', 'sent',       '2026-09-24T09:00:00Z', 0),
		('invoice.paid',   '{"n":2}', 'dead',       '2026-09-24T11:59:59Z', 5),
		('invoice.paid',   '{"n":3}', 'sent',       '2026-09-24T12:00:00Z', 0),
		('invoice.paid',   '{"n":4}', 'sent',       '2026-09-24T08:00:00Z', 0),
		('invoice.audit',  '{"n":5}', 'sent',       '2026-09-24T09:00:00Z', 0),
		('invoice.paid',   '{"n":6}', 'processing', '2026-09-24T09:00:00Z', 0),
		('other.thing',    '{"n":7}', 'dead',       '2026-09-24T09:00:00Z', 5);
		UPDATE outbox SET lease_expires_at = now() + interval '1 hour', claim_token = gen_random_uuid(),
			claimed_at = now() WHERE state = 'processing';
		CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS
			$$BEGIN NEW.scheduled_at := now() + interval '1 hour'; RETURN NEW; END$$;
		CREATE TRIGGER hold BEFORE UPDATE ON outbox FOR EACH ROW WHEN (NEW.state = 'pending') EXECUTE FUNCTION hold();`)

	body := curlBody(t, blockUnder(t, replayPage, "bash", "Replay everything for one destination"))
	code, resp, _ := post(t, p.url("/admin/replay"), body, token...)
	require.Equal(t, http.StatusOK, code, resp)
	require.JSONEq(t, `{"moved":2}`, resp, "the window is strict on both ends")
	require.Equal(t, [][]string{{"1", "pending"}, {"2", "pending"}, {"3", "sent"}, {"4", "sent"}, {"5", "sent"}, {"6", "processing"}, {"7", "dead"}},
		psqlRows(t, db, `SELECT payload->>'n', state FROM outbox ORDER BY payload->>'n'`))

	for _, tc := range []struct{ body, want string }{
		{`{"destination":"billing-service","topics":["invoice.audit"]}`, `{"moved":0}`},
		{`{"destination":"nobody"}`, `{"moved":0}`},
		{`{"topic":"invoice.paid"}`, `{"moved":2}`},
	} {
		code, resp, _ = post(t, p.url("/admin/replay"), tc.body, token...)
		require.Equal(t, http.StatusOK, code, resp)
		require.JSONEq(t, tc.want, resp, tc.body)
	}
	require.Equal(t, [][]string{{"processing"}}, psqlRows(t, db, `SELECT state FROM outbox WHERE payload->>'n' = '6'`),
		"no filter moves a processing row")
}

// TestAuditTutorialReplayAnswers checks the page's table of answers.
func TestAuditTutorialReplayAnswers(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	p, token, dataPort := replayDeliver(t, db, "")
	for _, tc := range []struct {
		body   string
		header []string
		code   int
		prefix string
	}{
		{`{}`, token, http.StatusBadRequest, `{"error":"A replay needs at least one filter."}`},
		{`{"ids": [`, token, http.StatusBadRequest, `{"error":"Invalid request: `},
		{`{"topic": 42}`, token, http.StatusBadRequest, `{"error":"Invalid request: `},
		{`{"topic":"x"}`, nil, http.StatusUnauthorized, `{"error":"`},
		{`{"topic":"x"}`, []string{"Authorization", "Bearer wrong"}, http.StatusUnauthorized, `{"error":"`},
		{`{"topic":"` + strings.Repeat("x", 65536) + `"}`, token, http.StatusRequestEntityTooLarge,
			`{"error":"Request body exceeds 65536 bytes"}`},
	} {
		code, body, _ := post(t, p.url("/admin/replay"), tc.body, tc.header...)
		require.Equal(t, tc.code, code, body)
		require.True(t, strings.HasPrefix(body, tc.prefix), body)
	}

	data := &process{port: dataPort}
	code, _, _ := post(t, data.url("/admin/replay"), `{"topic":"x"}`, token...)
	require.Equal(t, http.StatusNotFound, code, "the data port has no admin route")

	off := startServing(t, "deliver", db.env())
	code, _, _ = post(t, off.url("/admin/replay"), `{"topic":"x"}`, token...)
	require.Equal(t, http.StatusNotFound, code, "admin.enabled is false by default")
}
