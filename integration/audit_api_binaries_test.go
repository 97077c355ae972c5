package integration

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAuditAPIHealthAndMetricsOfEachBinary: each role reports the
// readiness components it owns, every family it exposes is documented,
// and the relay shows its counters at zero from the start, so an
// increase() alert sees the first event.
func TestAuditAPIHealthAndMetricsOfEachBinary(t *testing.T) {
	t.Parallel()
	documented := documentedMetrics(t)
	db := newDatabase(t)
	env := with(db.env(),
		"QUEUEBOX_RETENTION_ENABLED", "true",
		"QUEUEBOX_RETENTION_OUTBOX_POLICY", "AGE",
		"QUEUEBOX_RETENTION_OUTBOX_MAXAGE", "7d",
		"QUEUEBOX_RETENTION_INBOX_POLICY", "AGE",
		"QUEUEBOX_RETENTION_INBOX_MAXAGE", "30d")
	want := map[string][]string{
		"ingest":  {"database"},
		"relay":   {"database", "inbox-relay", "retention-service"},
		"deliver": {"database", "outbox-poller", "retention-service"},
		"capture": {"database"},
	}
	scrapes := map[string]string{}
	for _, role := range []string{"ingest", "relay", "deliver", "capture"} {
		p := startServing(t, role, env)
		p.waitHTTP(t, "/health/ready", http.StatusOK)
		code, body := get(t, p.url("/health/ready"))
		require.Equal(t, http.StatusOK, code, role)
		var report struct {
			Status     string
			Components map[string]struct{ Status string }
		}
		require.NoError(t, json.Unmarshal([]byte(body), &report), body)
		require.Equal(t, "healthy", report.Status, role)
		var names []string
		for name, c := range report.Components {
			names = append(names, name)
			require.Equal(t, "up", c.Status, "%s %s", role, name)
		}
		sort.Strings(names)
		require.Equal(t, want[role], names, role)

		resp, err := http.Get(p.url("/metrics"))
		require.NoError(t, err)
		require.Equal(t, "text/plain; version=0.0.4; charset=utf-8", resp.Header.Get("Content-Type"), role)
		resp.Body.Close()
		_, scrapes[role] = get(t, p.url("/metrics"))
		for _, name := range families(scrapes[role]) {
			require.True(t, documented[name], "queuebox-%s exposes %s, which the reference does not list", role, name)
		}
		require.Contains(t, scrapes[role], "queuebox_uptime_seconds ", role)
		require.Contains(t, scrapes[role], `hikaricp_connections_max{pool="queuebox"} `, role)
	}
	for _, series := range []string{
		`queuebox_claims_lost_total{component="inbox"} 0`,
		`queuebox_inbox_messages_total{status="forwarded"} 0`,
		`queuebox_inbox_relay_errors_total 0`,
		`queuebox_inbox_oldest_pending_age_seconds 0`,
	} {
		require.True(t, hasLine(scrapes["relay"], series), "queuebox-relay shows %s before any event", series)
	}
	require.True(t, hasLine(scrapes["deliver"], `queuebox_claims_lost_total{component="outbox"} 0`))
	require.NotContains(t, scrapes["ingest"], "queuebox_outbox_", "the outbox families belong to deliver")
	require.NotContains(t, scrapes["capture"], "queuebox_inbox_", "capture owns no inbox family")
}

func hasLine(scrape, line string) bool {
	for _, l := range strings.Split(scrape, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
