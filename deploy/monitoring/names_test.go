package monitoring

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"
)

// notOurs are the series a rule or panel may name beyond docs/metrics.md,
// each with the component that produces it.
var notOurs = map[string]string{
	"up":            "Prometheus, for every scrape target",
	"probe_success": "the blackbox exporter of the readiness probe",
}

// familyRow matches the name and type of a docs/metrics.md table row; the
// integration test checks the same rows against the binaries.
var familyRow = regexp.MustCompile("(?m)^\\| `([a-z_:]+)` \\| ([a-z]+) \\|")

// documented returns the families of docs/metrics.md by name, with their
// type.
func documented(t *testing.T) map[string]string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "metrics.md"))
	require.NoError(t, err)
	types := map[string]string{}
	for _, m := range familyRow.FindAllStringSubmatch(string(page), -1) {
		types[m[1]] = m[2]
	}
	require.Greater(t, len(types), 40, "docs/metrics.md parsed")
	return types
}

// family maps a series name to the family that exposes it: a summary
// exposes its quantiles under its own name and adds _sum and _count.
func family(name string, types map[string]string) (string, bool) {
	if _, ok := types[name]; ok {
		return name, true
	}
	for _, suffix := range []string{"_sum", "_count"} {
		base, cut := strings.CutSuffix(name, suffix)
		if cut && types[base] == "summary" {
			return base, true
		}
	}
	return "", false
}

var promql = parser.NewParser(parser.Options{})

// seriesOf parses expr and returns the metric names its selectors read.
func seriesOf(expr string) ([]string, error) {
	node, err := promql.ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			seen[vs.Name] = true
		}
		return nil
	})
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	return out, nil
}

// exprProblems parses expr (of where, e.g. "alerts.yml rule X") and
// returns one sentence per parse error or unknown metric.
func exprProblems(where, expr string, types map[string]string) []string {
	names, err := seriesOf(expr)
	if err != nil {
		return []string{fmt.Sprintf("%s does not parse: %v", where, err)}
	}
	if len(names) == 0 {
		return []string{fmt.Sprintf("%s reads no metric", where)}
	}
	var out []string
	for _, name := range names {
		if _, ok := family(name, types); ok || notOurs[name] != "" {
			continue
		}
		out = append(out, fmt.Sprintf("%s names %s, which docs/metrics.md does not list", where, name))
	}
	return out
}

func TestExprProblems(t *testing.T) {
	t.Parallel()
	types := map[string]string{"queuebox_a_total": "counter", "queuebox_t_seconds": "summary", "queuebox_g": "gauge"}
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`rate(queuebox_a_total[5m]) > 0`, nil},
		{`rate(queuebox_t_seconds_sum[5m]) / rate(queuebox_t_seconds_count[5m])`, nil},
		{`queuebox_t_seconds{quantile="0.99"} or up == 0`, nil},
		{`queuebox_g_sum`, []string{"x names queuebox_g_sum, which docs/metrics.md does not list"}},
		{`max(queuebox_missing) > queuebox_g`, []string{"x names queuebox_missing, which docs/metrics.md does not list"}},
		{`vector(1)`, []string{"x reads no metric"}},
	} {
		require.Equal(t, tc.want, exprProblems("x", tc.expr, types), tc.expr)
	}
	got := exprProblems("x", `rate(queuebox_a_total[5m`, types)
	require.Len(t, got, 1)
	require.Contains(t, got[0], "x does not parse")
}

// sectionFamilies returns the families of one "## " section of
// docs/metrics.md.
func sectionFamilies(t *testing.T, heading string) []string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "metrics.md"))
	require.NoError(t, err)
	_, section, found := strings.Cut(string(page), "\n## "+heading+"\n")
	require.True(t, found, "docs/metrics.md has a section %q", heading)
	section, _, _ = strings.Cut(section, "\n## ")
	var out []string
	for _, m := range familyRow.FindAllStringSubmatch(section, -1) {
		out = append(out, m[1])
	}
	require.NotEmpty(t, out, "families under %q", heading)
	return out
}

// TestFlowControlAndCaptureWatched: every family of the flow control and
// capture sections of docs/metrics.md is on a dashboard panel, and an
// alert reads the open breaker and the capture slot's lag.
func TestFlowControlAndCaptureWatched(t *testing.T) {
	t.Parallel()
	var d dashboard
	b, err := os.ReadFile(filepath.Join("grafana", "dashboards", "queuebox.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &d))
	onPanel := map[string]bool{}
	for _, p := range d.Panels {
		for _, target := range p.Targets {
			names, err := seriesOf(target.Expr)
			require.NoError(t, err, p.Title)
			for _, n := range names {
				onPanel[n] = true
			}
		}
	}
	for _, heading := range []string{"Flow control", "Capture"} {
		for _, name := range sectionFamilies(t, heading) {
			require.True(t, onPanel[name], "no dashboard panel shows %s (%s)", name, heading)
		}
	}

	var f ruleFile
	decodeYAML(t, "alerts.yml", &f)
	alerted := map[string]string{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			names, err := seriesOf(r.Expr)
			require.NoError(t, err, r.Alert)
			for _, n := range names {
				alerted[n] = r.Alert
			}
		}
	}
	for _, name := range []string{"queuebox_destination_circuit_state", "queuebox_capture_slot_lag_bytes"} {
		require.NotEmpty(t, alerted[name], "no alert rule reads %s", name)
	}
}
