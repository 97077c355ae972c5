package integration

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// specDir is where the product documentation lives on this machine. Tests
// read it; nothing of it is committed.
func specDir() string {
	if d := os.Getenv("QUEUEBOX_SPEC_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "spec")
}

// additions are the families that QueueBox exposes beyond the reference,
// each named in docs/metrics.md: the process memory and the open connections
// of each server (Security section), which the reference's scrape has no
// family for (it allows no Go runtime or process collectors), and the
// three flow control families of each destination (Flow control section).
var additions = []string{"queuebox_process_memory_bytes", "queuebox_http_connections_open",
	"queuebox_destination_circuit_state", "queuebox_destination_deferred_total", "queuebox_destination_in_flight"}

var documentedName = regexp.MustCompile("(?m)^\\| `((?:queuebox|hikaricp)[a-z_]*)` +\\|")

// documentedMetrics reads every metric name of the metrics reference.
func documentedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(specDir(), "29_Metrics.md"))
	require.NoError(t, err, "the metrics reference (set QUEUEBOX_SPEC_DIR)")
	names := map[string]bool{}
	for _, m := range documentedName.FindAllStringSubmatch(string(page), -1) {
		names[m[1]] = true
	}
	require.Greater(t, len(names), 30, "the page parsed")
	for _, name := range additions {
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

// TestMetricsMatchTheReference scrapes queuebox-deliver after it delivered
// a message and ran a cleanup: every documented outbox and pool family
// appears, and every family of the scrape is documented. The ingest and
// relay scrapes must hold documented families only.
func TestMetricsMatchTheReference(t *testing.T) {
	t.Parallel()
	documented := documentedMetrics(t)
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := retentionEnv(db, rc.URL)
	deliver, scrape := scrapeAfterDelivery(t, db, rc, env)
	got := families(scrape)
	for _, name := range got {
		require.True(t, documented[name], "queuebox-deliver exposes %s, which the reference does not list", name)
	}
	have := map[string]bool{}
	for _, n := range got {
		have[n] = true
	}
	for name := range documented {
		if strings.HasPrefix(name, "queuebox_inbox_") {
			continue // the inbox families belong to ingest and relay
		}
		require.True(t, have[name], "queuebox-deliver does not expose %s", name)
	}
	code, _ := get(t, deliver.url("/metrics"))
	require.Equal(t, http.StatusOK, code)

	relay := startServing(t, "relay", env)
	ingest := startServing(t, "ingest", env)
	inbox := map[string]bool{}
	for _, p := range []*process{relay, ingest} {
		_, scrape := get(t, p.url("/metrics"))
		for _, name := range families(scrape) {
			require.True(t, documented[name], "queuebox-%s exposes %s, which the reference does not list", p.name, name)
			inbox[name] = true
		}
	}
	for _, name := range []string{"queuebox_inbox_messages_total", "queuebox_inbox_relay_errors_total",
		"queuebox_inbox_rejections_total", "queuebox_inbox_oldest_pending_age_seconds"} {
		require.True(t, inbox[name], "%s exposed by ingest or relay", name)
	}
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
