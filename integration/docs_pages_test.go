package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// The operations pages of docs/ whose every sql block and curl command a
// reader copies; the tests below run each of them.
const (
	docsRunbook     = "runbook.md"
	docsDeadLetters = "dead-letters.md"
	docsUpgrade     = "upgrade.md"
)

// The rows docsSeed writes, named so the pages' placeholders and the
// checks after each page can point at them.
const (
	seedDeadA     = "0b8f0c1e-0000-4000-8000-00000000000a" // dead, order.created: requeued by id
	seedDeadB     = "0b8f0c1e-0000-4000-8000-00000000000b" // dead, order.created: requeued by topic
	seedDeadC     = "0b8f0c1e-0000-4000-8000-00000000000c" // dead, refund.created: discarded
	seedInboxDead = "0b8f0c1e-0000-4000-8000-0000000000d1" // dead inbox row: requeued
	seedInboxGone = "0b8f0c1e-0000-4000-8000-0000000000d2" // dead inbox row: discarded
	docsToken     = "docs-admin-token"
)

// docsSeed is one of each situation the pages treat: dead outbox rows of
// two topics (the first with its last two attempts in the delivery
// ledger), a key held back by a row that waits for its retry, a claim
// whose lease expired, a pull backlog on one aggregate, dead inbox rows.
var docsSeed = fmt.Sprintf(`
INSERT INTO outbox (id, topic, key, payload, state, attempt, max_attempts, last_error) VALUES
  ('%s', 'order.created', 'order-1', '{"n":1}', 'dead', 5, 5, 'HTTP 503 from orders'),
  ('%s', 'order.created', 'order-2', '{"n":2}', 'dead', 5, 5, 'HTTP 503 from orders'),
  ('%s', 'refund.created', NULL, '{"n":3}', 'dead', 0, 5, 'No route matches topic refund.created');
INSERT INTO outbox (topic, key, payload, attempt, last_error, scheduled_at) VALUES
  ('order.paid', 'order-3', '{}', 2, 'HTTP 500 from orders', now() + interval '1 hour');
INSERT INTO outbox (topic, key, payload) VALUES ('order.paid', 'order-3', '{}');
INSERT INTO outbox (topic, payload, state, claimed_at, claim_token, lease_expires_at) VALUES
  ('order.shipped', '{}', 'processing', now() - interval '10 minutes', gen_random_uuid(), now() - interval '5 minutes');
INSERT INTO outbox_attempts (outbox_id, message_id, destination, attempt, started_at, duration_ms, outcome,
  failure_class, status, answer) VALUES
  ('%[1]s', '%[1]s', 'orders', 3, now() - interval '5 minutes', 1204, 'failed', 'http_5xx', '503', '{"error":"orders database unavailable"}'),
  ('%[1]s', '%[1]s', 'orders', 4, now() - interval '2 minutes', 1187, 'dead', 'http_5xx', '503', '{"error":"orders database unavailable"}');
INSERT INTO inbox (id, source, idempotency_key, payload, consumption, state, last_error) VALUES
  ('%[4]s', 'stripe', 'evt-1', '{}', 'push', 'dead', 'topic: the template rendered empty'),
  ('%[5]s', 'stripe', 'evt-2', '{}', 'push', 'dead', 'topic: the template rendered empty');
INSERT INTO inbox (source, idempotency_key, payload, consumption, aggregate_id) VALUES
  ('orders', 'o-1', '{}', 'pull', 'a-1'), ('orders', 'o-2', '{}', 'pull', 'a-1');
`, seedDeadA, seedDeadB, seedDeadC, seedInboxDead, seedInboxGone)

// placeholderLeft finds a :name placeholder that filling missed (a cast
// such as ::uuid is not one).
var placeholderLeft = regexp.MustCompile(`(^|[^:\w]):[a-z_]+\b`)

// docsSQLResult is what one sql block of a page gave.
type docsSQLResult struct {
	Text string
	Rows [][]string
}

// runDocsSQL runs every sql block of a page in page order on a freshly
// migrated and seeded database: a SELECT must return a row, an UPDATE or
// DELETE must change one, anything else must succeed. A DELETE gets the
// ids of rows kept for discarding. It returns the results and the
// database for the page's own checks.
func runDocsSQL(t *testing.T, page string) ([]docsSQLResult, database) {
	t.Helper()
	db := newDatabase(t)
	p := start(t, "queuebox", db.env(), "migrate")
	require.Equal(t, 0, p.wait(t, 2*time.Minute), p.out.String())
	psqlExec(t, db, docsSeed)

	values := map[string]string{"message_id": quote(seedDeadA), "inbox_id": quote(seedInboxDead),
		"topic": quote("order.created"), "limit": "10"}
	discard := with(values, "message_id", quote(seedDeadC), "inbox_id", quote(seedInboxGone))
	var out []docsSQLResult
	skipped := 0
	for _, b := range pageBlocks(t, page) {
		if b.Lang != "sql" {
			continue
		}
		if b.Tags["norun"] {
			skipped++
			continue
		}
		verb := strings.ToUpper(strings.Fields(b.Text)[0])
		fill := values
		if verb == "DELETE" {
			fill = discard
		}
		sql := fillPlaceholders(b.Text, fill)
		require.NotRegexp(t, placeholderLeft, sql, "a placeholder without a value in %s", page)
		switch verb {
		case "SELECT", "WITH":
			rows := psqlRows(t, db, sql)
			require.NotEmpty(t, rows, "no row from %s:\n%s", page, sql)
			out = append(out, docsSQLResult{Text: b.Text, Rows: rows})
		case "UPDATE", "DELETE":
			require.Positive(t, psqlAffected(t, db, sql), "no row changed by %s:\n%s", page, sql)
			out = append(out, docsSQLResult{Text: b.Text})
		default:
			psqlAffected(t, db, sql)
			out = append(out, docsSQLResult{Text: b.Text})
		}
	}
	require.NotEmpty(t, out, "sql blocks in %s", page)
	t.Logf("%s: %d sql blocks run, %d marked norun", page, len(out), skipped)
	return out, db
}

func quote(s string) string { return "'" + s + "'" }

// TestDocsRunbookSQL runs the runbook's queries on the seeded symptoms and
// checks that each finds what its section says it finds.
func TestDocsRunbookSQL(t *testing.T) {
	t.Parallel()
	res, _ := runDocsSQL(t, docsRunbook)
	require.Len(t, res, 11)
	require.Equal(t, []string{"order.created", "HTTP 503 from orders", "2"}, res[0].Rows[0], "dead rows by topic and reason")
	require.Len(t, res[0].Rows, 2)
	require.Len(t, res[1].Rows, 2, "dead inbox rows")
	require.Equal(t, "topic: the template rendered empty", res[1].Rows[0][5], "their reason")
	require.Equal(t, [][]string{{"0", "1"}, {"2", "1"}}, firstColumns(res[2].Rows, 2), "pending rows by attempt")
	require.Equal(t, [][]string{{"order-3", "2"}}, firstColumns(res[3].Rows, 2), "keys held back")
	require.Equal(t, "1", res[4].Rows[0][0], "expired claims")
	require.Equal(t, []string{"order.paid", "1", "2"}, res[5].Rows[0][:3], "retrying topics")
	require.Len(t, res[6].Rows, 2, "the errors of order.created")
	require.Equal(t, [][]string{{"orders", "pull", "2"}}, firstColumns(res[7].Rows, 3), "inbox backlog")
	require.Equal(t, [][]string{{"orders", "a-1", "2"}}, firstColumns(res[8].Rows, 3), "aggregates held back")
	require.NotEmpty(t, res[10].Rows[0][0], "max_connections")
}

// TestDocsDeadLettersSQL runs the dead-letter page and checks where every
// seeded row ends: requeued by id, requeued by topic, discarded.
func TestDocsDeadLettersSQL(t *testing.T) {
	t.Parallel()
	res, db := runDocsSQL(t, docsDeadLetters)
	require.Len(t, res, 13)
	require.Equal(t, []string{"order.created", "2"}, res[0].Rows[0][:2], "dead rows per topic")
	require.Equal(t, [][]string{{"4", "dead", "503"}, {"3", "failed", "503"}}, [][]string{
		{res[4].Rows[0][1], res[4].Rows[0][3], res[4].Rows[0][5]}, {res[4].Rows[1][1], res[4].Rows[1][3], res[4].Rows[1][5]}},
		"the attempts of the row, newest first")
	require.Equal(t, []string{"orders", "http_5xx", "2"}, res[5].Rows[0][:3], "failed attempts per destination and class")
	require.Equal(t, []string{seedDeadA, "pending", "0"}, res[7].Rows[0][:3], "the requeued row")
	states := psqlRows(t, db, `SELECT id::text, state, attempt::text FROM outbox WHERE topic IN ('order.created', 'refund.created') ORDER BY id`)
	require.Equal(t, [][]string{{seedDeadA, "pending", "0"}, {seedDeadB, "pending", "0"}}, states, "C is discarded")
	inbox := psqlRows(t, db, `SELECT id::text, state FROM inbox WHERE source = 'stripe'`)
	require.Equal(t, [][]string{{seedInboxDead, "pending"}}, inbox)
}

// TestDocsUpgradeSQL runs the upgrade page: the history lists V1 to the
// newest file, and the online index statements leave the indexes there.
func TestDocsUpgradeSQL(t *testing.T) {
	t.Parallel()
	res, db := runDocsSQL(t, docsUpgrade)
	files, err := filepath.Glob(filepath.Join("..", "migrations", "postgres", "V*.sql"))
	require.NoError(t, err)
	require.Len(t, res[0].Rows, len(files), "one history row per migration file")
	require.Equal(t, "1", res[0].Rows[0][0])
	indexes := psqlRows(t, db, `SELECT indexname FROM pg_indexes WHERE indexname IN ('idx_inbox_push_heads', 'idx_inbox_push_unkeyed') ORDER BY 1`)
	require.Equal(t, [][]string{{"idx_inbox_push_heads"}, {"idx_inbox_push_unkeyed"}}, indexes)
}

// firstColumns cuts every row to its first n cells.
func firstColumns(rows [][]string, n int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:n]
	}
	return out
}

// TestDocsCurlCommands runs every curl command of the three pages, in page
// order, with bash against the built queuebox (every role, the admin
// routes on) over the seeded rows, once it has delivered one row. Each must succeed with some output, and
// the answer block under a command names lines its output must hold. The
// replay by id must then reach the receiver.
func TestDocsCurlCommands(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	p := startServing(t, "queuebox", tutorialConfig(t, db, fmt.Sprintf(`
admin:
  enabled: true
  auth:
    type: bearer
    token: %s
destinations:
  orders:
    type: http
    baseUrl: %s
routes:
  - topicPattern: "order.*"
    destination: orders
`, docsToken, rc.URL)))
	p.waitHTTP(t, "/health/ready", 200)
	// The pages read the metrics of a process that has delivered: a
	// labelled family shows in /metrics only once it has a sample.
	psqlExec(t, db, `INSERT INTO outbox (topic, payload) VALUES ('order.warmup', '{}')`)
	waitOutbox(t, db, "order.warmup", "sent")
	psqlExec(t, db, docsSeed)

	ran, answers, skipped := 0, 0, 0
	for _, page := range []string{docsRunbook, docsDeadLetters, docsUpgrade} {
		blocks := pageBlocks(t, page)
		for i, b := range blocks {
			if b.Lang != "bash" {
				continue
			}
			if b.Tags["norun"] {
				skipped++
				continue
			}
			require.Contains(t, b.Text, "curl ", "%s: a shell block that is neither a curl command nor marked norun", page)
			out := runCurlBlock(t, p, b.Text)
			ran++
			if i+1 < len(blocks) {
				if blocks[i+1].Tags["answer"] {
					answers++
					for _, line := range strings.Split(strings.TrimSpace(blocks[i+1].Text), "\n") {
						require.Contains(t, out, strings.TrimSpace(line), "%s: the answer of\n%s", page, b.Text)
					}
				}
			}
		}
	}
	require.GreaterOrEqual(t, ran, 7, "curl blocks run")
	require.GreaterOrEqual(t, answers, 4, "answers checked")
	t.Logf("%d curl blocks run, %d answers checked, %d marked norun", ran, answers, skipped)
	require.Eventually(t, func() bool {
		for _, r := range rc.Requests() {
			if r.Body == `{"n":1}` {
				return true
			}
		}
		return false
	}, 60*time.Second, 50*time.Millisecond, "the replayed row reaches the receiver")
}

// runCurlBlock runs one shell block with the process's address in place
// of localhost:8080, the admin token and a dead row's id in the variables
// the pages name, and returns its output.
func runCurlBlock(t *testing.T, p *process, block string) string {
	t.Helper()
	script := strings.ReplaceAll(block, "http://localhost:8080", p.url(""))
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "ADMIN_TOKEN=" + docsToken, "MESSAGE_ID=" + seedDeadA}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", script, out)
	require.NotEmpty(t, strings.TrimSpace(string(out)), script)
	return string(out)
}
