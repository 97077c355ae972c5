package integration

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// roles are the binaries whose scrapes docs/metrics.md describes.
var roles = []string{"ingest", "relay", "deliver", "capture"}

// pageFamily is one row of docs/metrics.md.
type pageFamily struct {
	typ   string
	roles map[string]bool
}

// pageRow matches a table row: | `name` | type | labels | roles | meaning |
var pageRow = regexp.MustCompile("(?m)^\\| `([a-z_:]+)` \\| ([a-z]+) \\| [^|]+ \\| ([a-z, ]+) \\|")

// metricsPage reads every family of docs/metrics.md with its type and roles.
func metricsPage(t *testing.T) map[string]pageFamily {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("..", "docs", "metrics.md"))
	require.NoError(t, err)
	out := map[string]pageFamily{}
	for _, m := range pageRow.FindAllStringSubmatch(string(page), -1) {
		f := pageFamily{typ: m[2], roles: map[string]bool{}}
		for _, r := range strings.Split(m[3], ",") {
			r = strings.TrimSpace(r)
			if r == "all" {
				for _, each := range roles {
					f.roles[each] = true
				}
				continue
			}
			require.Contains(t, roles, r, "docs/metrics.md: %s names an unknown role", m[1])
			f.roles[r] = true
		}
		require.NotContains(t, out, m[1], "docs/metrics.md lists %s twice", m[1])
		out[m[1]] = f
	}
	require.Greater(t, len(out), 40, "docs/metrics.md parsed")
	return out
}

// pageProblems compares the page with the scrape of each role (role ->
// family -> type) and returns one sentence per difference.
func pageProblems(page map[string]pageFamily, scrapes map[string]map[string]string) []string {
	var out []string
	for _, role := range roles {
		for name, typ := range scrapes[role] {
			f, listed := page[name]
			switch {
			case !listed:
				out = append(out, fmt.Sprintf("queuebox-%s exposes %s (%s), which docs/metrics.md does not list", role, name, typ))
			case !f.roles[role]:
				out = append(out, fmt.Sprintf("queuebox-%s exposes %s, which docs/metrics.md does not list for %s", role, name, role))
			case f.typ != typ:
				out = append(out, fmt.Sprintf("queuebox-%s exposes %s as a %s, docs/metrics.md says %s", role, name, typ, f.typ))
			}
		}
	}
	for name, f := range page {
		for role := range f.roles {
			if _, ok := scrapes[role][name]; !ok {
				out = append(out, fmt.Sprintf("docs/metrics.md lists %s for %s, but queuebox-%s does not expose it", name, role, role))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestMetricsDocMatchesEveryRole scrapes every built role after it did the
// work that makes each of its families appear (a delivery and a cleanup,
// a filtered and a stored inbox message, a relay pass, a capture start)
// and compares the families with docs/metrics.md, role by role; the
// one-process binary may expose only families the page lists.
func TestMetricsDocMatchesEveryRole(t *testing.T) {
	t.Parallel()
	page := metricsPage(t)
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := with(retentionEnv(db, rc.URL),
		"QUEUEBOX_SOURCES_HOOKS_TYPE", "http",
		"QUEUEBOX_SOURCES_HOOKS_PATH", "/hooks",
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_HOOKS_TOPIC", "hooks.received",
		"QUEUEBOX_SOURCES_HOOKS_FILTER_REQUIRE_0_HEADER", "X-Keep",
		"QUEUEBOX_SOURCES_HOOKS_FILTER_REQUIRE_0_EXISTS", "true",
		"QUEUEBOX_INBOX_RELAY_PENDINGGAUGEINTERVALMS", "50")
	scrapes := map[string]map[string]string{}
	_, deliver := scrapeAfterDelivery(t, db, rc, env)
	scrapes["deliver"] = familyTypes(deliver)

	ingest := startServing(t, "ingest", env)
	code, body, _ := post(t, ingest.url("/inbox/hooks"), `{"id":"dropped"}`)
	require.Less(t, code, 300, body)
	code, body, _ = post(t, ingest.url("/inbox/hooks"), `{"id":"kept"}`, "X-Keep", "1")
	require.Equal(t, http.StatusAccepted, code, body)
	scrapes["ingest"] = familyTypes(scrapeUntil(t, ingest,
		`queuebox_inbox_filtered_total{source="hooks"} 1`, `queuebox_inbox_messages_total{status="new"} 1`))

	relay := startServing(t, "relay", env)
	scrapes["relay"] = familyTypes(scrapeUntil(t, relay,
		`queuebox_inbox_messages_total{status="forwarded"} 1`, `queuebox_cleanup_last_run_timestamp{table="inbox"}`))

	f := newCaptureFixture(t, 60000)
	f.startDeliver(t) // migrates the fixture's database
	f.createPublication(t)
	// The capture families exist from the start, whether the connector
	// streams or reports a fault (wal_level, a missing slot): no wait for
	// "up", so the page is checked on any server.
	capture := startServing(t, "capture", f.capture)
	scrapes["capture"] = familyTypes(scrapeUntil(t, capture, "queuebox_capture_wakeups_total"))

	// The one-process binary runs every role on one registry: each of its
	// families must be on the page too.
	single := startWithArgs(t, env)
	single.waitHTTP(t, "/health/live", http.StatusOK)
	problems := pageProblems(page, scrapes)
	for name := range familyTypes(scrapeUntil(t, single, "# TYPE queuebox_outbox_messages_total ")) {
		if _, listed := page[name]; !listed {
			problems = append(problems, fmt.Sprintf("queuebox (every role in one process) exposes %s, which docs/metrics.md does not list", name))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("docs/metrics.md and the binaries differ:\n%s", strings.Join(problems, "\n"))
	}
}

// TestMetricsDocProblems checks the comparison itself on a small page, so
// each kind of difference is named as the failure message promises.
func TestMetricsDocProblems(t *testing.T) {
	t.Parallel()
	page := map[string]pageFamily{
		"queuebox_a": {typ: "gauge", roles: map[string]bool{"deliver": true}},
		"queuebox_b": {typ: "counter", roles: map[string]bool{"relay": true, "deliver": true}},
	}
	scrapes := map[string]map[string]string{
		"deliver": {"queuebox_a": "counter", "queuebox_b": "counter"},
		"ingest":  {"queuebox_a": "gauge", "queuebox_c": "gauge"},
	}
	require.Equal(t, []string{
		"docs/metrics.md lists queuebox_b for relay, but queuebox-relay does not expose it",
		"queuebox-deliver exposes queuebox_a as a counter, docs/metrics.md says gauge",
		"queuebox-ingest exposes queuebox_a, which docs/metrics.md does not list for ingest",
		"queuebox-ingest exposes queuebox_c (gauge), which docs/metrics.md does not list",
	}, pageProblems(page, scrapes))
}
