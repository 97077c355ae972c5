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

const runbookPage = "22_Runbook.md"

// TestAuditTutorialRunbookSQL builds each symptom the runbook treats (a
// dead row, a retry backlog that holds back its key, a stuck claim, a pull
// backlog) and runs every sql block of the page on it in page order.
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
	dead := psqlRows(t, db, `SELECT id FROM outbox WHERE state = 'dead'`)[0][0]

	results := map[string][][]string{}
	for _, b := range postgresSQL(t, runbookPage) {
		sql := fillPlaceholders(b.Text, map[string]string{"message_id": "'" + dead + "'", "topic": "'order.failing'", "limit": "10"})
		if strings.HasPrefix(sql, "UPDATE") {
			continue // the replays run last, below
		}
		results[firstLine(sql)] = psqlRows(t, db, sql)
	}
	require.Equal(t, [][]string{{"refund.created", "1"}}, results["SELECT topic, count(*) AS dead_count"])
	reasons := results["SELECT left(last_error, 60) AS reason, count(*) AS dead_count"]
	require.Len(t, reasons, 1)
	require.True(t, strings.HasPrefix(reasons[0][0], "No route matches topic"), reasons)
	require.Len(t, results["SELECT id, source, idempotency_key, event_type, created_at"], 1, "the dead inbox row")
	require.Equal(t, [][]string{{"0", "1"}, {"1", "1"}}, results["SELECT attempt, count(*) AS pending_count"])
	require.Equal(t, "k", results["SELECT key, count(*) AS waiting_rows, min(created_at) AS oldest_created_at"][0][0])
	require.Equal(t, "2", results["SELECT key, count(*) AS waiting_rows, min(created_at) AS oldest_created_at"][0][1])
	require.Equal(t, "1", results["SELECT count(*) AS stuck_count, min(claimed_at) AS oldest_claim"][0][0])
	require.Equal(t, [][]string{{"order.failing", "1", "1"}}, results["SELECT topic, count(*) AS retry_count, max(attempt) AS worst_attempt"])
	require.Contains(t, results["SELECT id, attempt, updated_at, last_error"][0][3], "503")
	require.Equal(t, []string{"orders", "pull", "2"}, results["SELECT source, consumption, count(*) AS pending_count, min(created_at) AS oldest_created_at"][0][:3])
	require.Equal(t, [][]string{{"orders", "a-1", "2"}}, results["SELECT source, aggregate_id, count(*) AS waiting_rows"])

	for _, b := range postgresSQL(t, runbookPage) {
		if strings.HasPrefix(b.Text, "UPDATE") {
			sql := fillPlaceholders(b.Text, map[string]string{"message_id": "'" + dead + "'", "topic": "'refund.created'"})
			psqlAffected(t, db, sql)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// grepPatterns returns the metric names that the page's grep commands
// look for, with one level of (a|b) alternation expanded.
func grepPatterns(t *testing.T) []string {
	t.Helper()
	var out []string
	grep := regexp.MustCompile(`grep (?:-E )?'?([a-z_|()]+)'?`)
	group := regexp.MustCompile(`^([a-z_]*)\(([a-z_|]+)\)([a-z_]*)$`)
	for _, b := range pageBlocks(t, runbookPage) {
		if b.Lang != "bash" || !strings.Contains(b.Text, "/metrics") {
			continue
		}
		m := grep.FindStringSubmatch(b.Text)
		require.NotNil(t, m, b.Text)
		for _, alt := range splitTop(m[1]) {
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

// TestAuditTutorialRunbookMetrics starts the poller with the page's
// environment variables and the relay beside it, delivers one row, and
// checks every metric that the page greps for, the component label of the
// lost claims and the components of the readiness answer.
func TestAuditTutorialRunbookMetrics(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := destinationEnv(db.env(), rc.URL)
	for _, b := range pageBlocks(t, runbookPage) {
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

// TestAuditTutorialRunbookPoolFragment: the page's YAML fragment for the
// pool and the batch loads and sizes the pool.
func TestAuditTutorialRunbookPoolFragment(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	yaml := blockUnder(t, runbookPage, "yaml", "Scenario 4", "poolSize: 20")
	deliver := startServing(t, "deliver", tutorialConfig(t, db, yaml))
	_, scrape := get(t, deliver.url("/metrics"))
	require.Equal(t, 20.0, sample(t, scrape, `hikaricp_connections_max{pool="queuebox"}`))
}
