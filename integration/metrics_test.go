package integration

import (
	"context"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// documentedMetrics returns every metric family that docs/metrics.md
// lists, for the tests that only ask whether a family is documented; the
// page's types and roles are checked by TestMetricsDocMatchesEveryRole.
func documentedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for name := range metricsPage(t) {
		names[name] = true
	}
	return names
}

var typeLine = regexp.MustCompile(`(?m)^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) ([a-z]+)$`)

// families lists the metric families of a scrape.
func families(scrape string) []string {
	var out []string
	for name := range familyTypes(scrape) {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// familyTypes maps each family of a scrape to its type (counter, gauge,
// summary...).
func familyTypes(scrape string) map[string]string {
	out := map[string]string{}
	for _, m := range typeLine.FindAllStringSubmatch(scrape, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// retentionEnv is a deliver-side environment with one HTTP destination
// and retention on for both tables, so the cleanup families exist.
func retentionEnv(db database, receiverURL string) map[string]string {
	return with(destinationEnv(db.env(), receiverURL),
		"QUEUEBOX_RETENTION_ENABLED", "true",
		"QUEUEBOX_RETENTION_OUTBOX_POLICY", "AGE",
		"QUEUEBOX_RETENTION_OUTBOX_MAXAGE", "7d",
		"QUEUEBOX_RETENTION_INBOX_POLICY", "AGE",
		"QUEUEBOX_RETENTION_INBOX_MAXAGE", "30d",
		"QUEUEBOX_OUTBOX_PENDINGGAUGEINTERVALMS", "100")
}

// scrapeAfterDelivery starts queuebox-deliver with env, inserts one row,
// and returns the process and its scrape once the row was delivered to rc
// and the outbox cleanup ran: by then every family of deliver exists.
func scrapeAfterDelivery(t *testing.T, db database, rc *brokertest.HTTPReceiver, env map[string]string) (*process, string) {
	t.Helper()
	deliver := startServing(t, "deliver", env)
	_, err := db.connect(t).Exec(context.Background(), `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{}')`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(rc.Requests()) == 1 }, 30*time.Second, 10*time.Millisecond)
	scrape := scrapeUntil(t, deliver,
		`queuebox_outbox_queue_depth{destination="webhook"}`,
		`queuebox_outbox_messages_total{status="sent"} 1`,
		// The cleanup runs at the start, beside the delivery and in no
		// fixed order with it: its families exist once it ran.
		`queuebox_cleanup_messages_deleted_total{table="outbox"}`)
	return deliver, scrape
}

// scrapeUntil scrapes p until the body holds every one of want, and
// returns that body.
func scrapeUntil(t *testing.T, p *process, want ...string) string {
	t.Helper()
	var scrape string
	require.Eventually(t, func() bool {
		_, scrape = get(t, p.url("/metrics"))
		for _, w := range want {
			if !strings.Contains(scrape, w) {
				return false
			}
		}
		return true
	}, 60*time.Second, 50*time.Millisecond, "queuebox-%s's scrape never held %q:\n%s", p.name, want, scrape)
	return scrape
}

func TestMetricsContentType(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	p := startServing(t, "deliver", db.env())
	resp, err := http.Get(p.url("/metrics"))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/plain; version=0.0.4; charset=utf-8", resp.Header.Get("Content-Type"))
}
