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
// each named in the README's Security section: the process memory and
// the open connections of each server, which the reference's scrape has
// no family for (it allows no Go runtime or process collectors).
var additions = []string{"queuebox_process_memory_bytes", "queuebox_http_connections_open"}

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

var typeLine = regexp.MustCompile(`(?m)^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) `)

// families lists the metric families of a scrape.
func families(scrape string) []string {
	var out []string
	for _, m := range typeLine.FindAllStringSubmatch(scrape, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
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
	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_RETENTION_ENABLED", "true",
		"QUEUEBOX_RETENTION_OUTBOX_POLICY", "AGE",
		"QUEUEBOX_RETENTION_OUTBOX_MAXAGE", "7d",
		"QUEUEBOX_RETENTION_INBOX_POLICY", "AGE",
		"QUEUEBOX_RETENTION_INBOX_MAXAGE", "30d",
		"QUEUEBOX_OUTBOX_PENDINGGAUGEINTERVALMS", "100")
	deliver := startServing(t, "deliver", env)
	_, err := db.connect(t).Exec(context.Background(), `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{}')`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(rc.Requests()) == 1 }, 30*time.Second, 10*time.Millisecond)
	var scrape string
	require.Eventually(t, func() bool {
		_, scrape = get(t, deliver.url("/metrics"))
		// The cleanup runs at the start, beside the delivery and in no
		// fixed order with it: its families exist once it ran.
		return strings.Contains(scrape, `queuebox_outbox_queue_depth{destination="webhook"}`) &&
			strings.Contains(scrape, `queuebox_outbox_messages_total{status="sent"} 1`) &&
			strings.Contains(scrape, `queuebox_cleanup_messages_deleted_total{table="outbox"}`) // set last of the three
	}, 30*time.Second, 50*time.Millisecond, "a delivery and a cleanup run in the scrape:\n%s", scrape)
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
