package integration

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestAuditTutorialRunbookSQL builds each symptom that docs/runbook.md
// treats (a dead row of each table, a retry backlog that holds back its
// lane, a live claim, a pull backlog) with a running deliver, runs every
// sql block of the page on it in page order, and checks what each finds.
// The requeue statements that the runbook sends the reader to are those of
// docs/dead-letters.md, which TestAuditTutorialDeadLettersOutbox runs.
func TestAuditTutorialRunbookSQL(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(r brokertest.HTTPRequest) int {
		if r.Header.Get("X-Topic") == "order.failing" {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}))

	startServing(t, "deliver", tutorialConfig(t, db, fmt.Sprintf(`
outbox:
  pollIntervalMs: 20
  retryBaseDelayMs: 3600000
destinations:
  orders:
    type: http
    baseUrl: %s
routes:
  - topicPattern: "order.*"
    destination: orders
  - topicPattern: "held"
    destination: orders
`, rc.URL)))
	psqlExec(t, db, `
		INSERT INTO outbox (topic, key, payload) VALUES ('order.ok', NULL, '{}'), ('order.failing', 'k', '{}'),
			('order.ok', 'k', '{}'), ('refund.created', NULL, '{}');
		INSERT INTO outbox (topic, payload, state, claimed_at, claim_token, lease_expires_at)
			VALUES ('held', '{}', 'processing', now(), gen_random_uuid(), now() + interval '1 hour');
		INSERT INTO inbox (source, idempotency_key, payload, consumption, aggregate_id, state) VALUES
			('orders', 'o-1', '{}', 'pull', 'a-1', 'pending'), ('orders', 'o-2', '{}', 'pull', 'a-1', 'pending'),
			('stripe', 'e-1', '{}', 'push', NULL, 'dead');`)
	require.Eventually(t, func() bool {
		return len(psqlRows(t, db, `SELECT 1 FROM outbox WHERE state = 'dead' OR attempt = 1`)) == 2
	}, 30*time.Second, 20*time.Millisecond)

	results := map[string][][]string{}
	for _, b := range postgresSQL(t, docsRunbook) {
		sql := fillPlaceholders(b.Text, map[string]string{"topic": "'order.failing'", "limit": "10"})
		require.NotRegexp(t, placeholderLeft, sql, "a placeholder without a value")
		results[firstLine(sql)] = psqlRows(t, db, sql)
	}
	checked := map[string]bool{}
	result := func(first string) [][]string {
		t.Helper()
		rows, ok := results[first]
		require.True(t, ok, "no sql block of docs/%s starts with %q", docsRunbook, first)
		checked[first] = true
		return rows
	}

	dead := result("SELECT topic, left(last_error, 80) AS reason, count(*) AS dead")
	require.Len(t, dead, 1, "the row without a route is the only dead one")
	require.Equal(t, []string{"refund.created", "1"}, []string{dead[0][0], dead[0][2]})
	require.True(t, strings.HasPrefix(dead[0][1], "No route matches topic"), dead)
	require.Len(t, result("SELECT id, source, idempotency_key, event_type, created_at, left(last_error, 80) AS reason"), 1, "the dead inbox row")
	require.Equal(t, [][]string{{"0", "1"}, {"1", "1"}}, firstColumns(result("SELECT attempt, count(*) AS pending, min(created_at) AS oldest"), 2))
	require.Equal(t, [][]string{{"k", "2", "orders"}}, firstColumns(result("SELECT key, count(*) AS waiting, destination, min(created_at) AS oldest"), 3),
		"the retrying row holds back the later row of its lane")
	require.Equal(t, "0", result("SELECT count(*) AS expired_claims, min(lease_expires_at) AS oldest_lease")[0][0],
		"a claim whose lease still runs is not expired")
	retrying := result("SELECT topic, count(*) AS retrying, max(attempt) AS highest_attempt, max(last_error) AS an_error, destination")
	require.Len(t, retrying, 1)
	require.Equal(t, []string{"order.failing", "1", "1"}, retrying[0][:3])
	require.Contains(t, retrying[0][3], "503")
	require.Equal(t, "orders", retrying[0][4])
	require.Contains(t, result("SELECT id, attempt, updated_at, last_error")[0][3], "503")
	require.Equal(t, []string{"orders", "pull", "2"}, result("SELECT source, consumption, count(*) AS pending, min(created_at) AS oldest")[0][:3])
	require.Equal(t, [][]string{{"orders", "a-1", "2"}}, result("SELECT source, aggregate_id, count(*) AS waiting"))
	require.NotEmpty(t, result("SELECT application_name, state, count(*) AS connections"), "this test's own connection")
	require.NotEmpty(t, result("SELECT current_setting('max_connections') AS max_connections;")[0][0])
	for first := range results {
		require.True(t, checked[first], "the sql block of docs/%s that starts with %q has no check here", docsRunbook, first)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// grepPatterns returns the metric names that the runbook's grep commands
// look for, with one level of (a|b) alternation expanded and the ^
// anchors dropped.
func grepPatterns(t *testing.T) []string {
	t.Helper()
	var out []string
	grep := regexp.MustCompile(`grep (?:-E )?'?([a-z_|()^]+)'?`)
	group := regexp.MustCompile(`^([a-z_]*)\(([a-z_|]+)\)([a-z_]*)$`)
	for _, b := range pageBlocks(t, docsRunbook) {
		if b.Lang != "bash" || !strings.Contains(b.Text, "/metrics") {
			continue
		}
		m := grep.FindStringSubmatch(b.Text)
		require.NotNil(t, m, b.Text)
		for _, alt := range splitTop(m[1]) {
			alt = strings.TrimPrefix(alt, "^")
			if g := group.FindStringSubmatch(alt); g != nil {
				for _, inner := range strings.Split(g[2], "|") {
					out = append(out, g[1]+inner+g[3])
				}
				continue
			}
			out = append(out, alt)
		}
	}
	return out
}

// splitTop splits a pattern on the | outside parentheses.
func splitTop(p string) []string {
	var out []string
	depth, last := 0, 0
	for i, c := range p {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 {
				out, last = append(out, p[last:i]), i+1
			}
		}
	}
	return append(out, p[last:])
}

// TestAuditTutorialRunbookMetrics starts the poller with the runbook's
// environment variables and the relay beside it, delivers one row, and
// checks every metric that the page greps for, the component label of the
// lost claims and the components of the readiness answer.
func TestAuditTutorialRunbookMetrics(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := destinationEnv(db.env(), rc.URL)
	for _, b := range pageBlocks(t, docsRunbook) {
		for _, m := range regexp.MustCompile(`(?m)^export (QUEUEBOX_[A-Z_]+)=(\S+)$`).FindAllStringSubmatch(b.Text, -1) {
			env = with(env, m[1], m[2])
		}
	}
	require.Equal(t, "20", env["QUEUEBOX_DATABASE_POOLSIZE"])
	deliver := startServing(t, "deliver", env)
	relay := startServing(t, "relay", env)
	psqlExec(t, db, `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{}')`)
	waitOutbox(t, db, "order.created", "sent")

	_, fromDeliver := get(t, deliver.url("/metrics"))
	_, fromRelay := get(t, relay.url("/metrics"))
	scrape := fromDeliver + fromRelay
	names := grepPatterns(t)
	require.Contains(t, names, "hikaricp_connections_timeout_total")
	require.Contains(t, names, "queuebox_outbox_publish_duration_seconds")
	for _, name := range names {
		require.Regexp(t, `(?m)^`+name+`[{ ]`, scrape, "a sample of %s", name)
	}
	for _, name := range []string{"queuebox_outbox_publish_duration_seconds_max", "queuebox_inbox_oldest_pending_age_seconds", "queuebox_inbox_relay_errors_total"} {
		require.Regexp(t, `(?m)^`+name+`[{ ]`, scrape, "a sample of %s", name)
	}
	require.Equal(t, 20.0, sample(t, fromDeliver, `hikaricp_connections_max{pool="queuebox"}`))
	require.Contains(t, fromDeliver, `queuebox_claims_lost_total{component="outbox"}`)
	require.Contains(t, fromRelay, `queuebox_claims_lost_total{component="inbox"}`)

	_, ready := get(t, deliver.url("/health/ready"))
	require.Contains(t, ready, `"outbox-poller":{"status":"up"}`)
	_, ready = get(t, relay.url("/health/ready"))
	require.Contains(t, ready, `"inbox-relay":{"status":"up"}`)
}

// TestAuditTutorialRunbookPoolFragment: the runbook's YAML fragment for
// the pool and the batch loads and sizes the pool.
func TestAuditTutorialRunbookPoolFragment(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	yaml := blockUnder(t, docsRunbook, "yaml", "Connections run out", "poolSize: 20")
	deliver := startServing(t, "deliver", tutorialConfig(t, db, yaml))
	_, scrape := get(t, deliver.url("/metrics"))
	require.Equal(t, 20.0, sample(t, scrape, `hikaricp_connections_max{pool="queuebox"}`))
}
