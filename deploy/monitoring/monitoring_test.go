package monitoring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// ruleFile is the Prometheus rule file format, strictly decoded.
type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// decodeYAML reads a YAML file of this folder into v, refusing keys that v
// does not know.
func decodeYAML(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(v), name)
}

// TestAlertRules: the nine alerts of the monitoring guide and those of
// an open circuit breaker and of the capture slot's lag, each with a
// severity and a summary, every expression parses and reads only metrics
// of docs/metrics.md.
func TestAlertRules(t *testing.T) {
	t.Parallel()
	types := documented(t)
	var f ruleFile
	decodeYAML(t, "alerts.yml", &f)
	var problems []string
	alerts := map[string]bool{}
	for _, g := range f.Groups {
		require.NotEmpty(t, g.Name)
		for _, r := range g.Rules {
			where := fmt.Sprintf("alerts.yml rule %s (group %s)", r.Alert, g.Name)
			require.NotEmpty(t, r.Alert, "every rule of %s is an alert", g.Name)
			alerts[r.Alert] = true
			problems = append(problems, exprProblems(where, r.Expr, types)...)
			if r.For != "" {
				_, err := time.ParseDuration(r.For)
				require.NoError(t, err, where)
			}
			require.Contains(t, []string{"page", "ticket"}, r.Labels["severity"], where)
			require.NotEmpty(t, r.Annotations["summary"], where)
			require.NotEmpty(t, r.Annotations["description"], where)
		}
	}
	require.Empty(t, problems, strings.Join(problems, "\n"))
	require.Equal(t, map[string]bool{
		"QueueBoxOutboxDeliveryLate": true, "QueueBoxInboxLate": true, "QueueBoxOutboxMessagesDead": true,
		"QueueBoxDestinationFailing": true, "QueueBoxClaimsLost": true, "QueueBoxPoolStarved": true,
		"QueueBoxInboxCannotStore": true, "QueueBoxRelayFailing": true, "QueueBoxInstanceNotReady": true,
		"QueueBoxCircuitOpen": true, "QueueBoxCaptureSlotLag": true,
	}, alerts, "the nine alerts of the monitoring guide, an open breaker and the capture slot's lag")
}

// dashboard is the part of a Grafana dashboard the test reads.
type dashboard struct {
	UID    string `json:"uid"`
	Panels []struct {
		Title      string `json:"title"`
		Type       string `json:"type"`
		Datasource *struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// TestDashboard: one row per question of the monitoring guide, every
// panel reads the provisioned data source, and every query parses and
// reads only metrics of docs/metrics.md.
func TestDashboard(t *testing.T) {
	t.Parallel()
	types := documented(t)
	b, err := os.ReadFile(filepath.Join("grafana", "dashboards", "queuebox.json"))
	require.NoError(t, err)
	var d dashboard
	require.NoError(t, json.Unmarshal(b, &d))
	require.NotEmpty(t, d.UID)
	rows := map[string]bool{}
	var problems []string
	queries := 0
	for _, p := range d.Panels {
		if p.Type == "row" {
			rows[p.Title] = true
			continue
		}
		require.NotNil(t, p.Datasource, p.Title)
		require.Equal(t, provisionedUID(t), p.Datasource.UID, p.Title)
		require.NotEmpty(t, p.Targets, p.Title)
		for i, target := range p.Targets {
			problems = append(problems, exprProblems(fmt.Sprintf("panel %q query %d", p.Title, i+1), target.Expr, types)...)
			queries++
		}
	}
	require.Empty(t, problems, strings.Join(problems, "\n"))
	for _, q := range []string{"Does delivery keep up?", "Do destinations accept?", "Is a destination slow?", "Does the inbox take traffic?",
		"Is a destination held back?", "Does capture keep up?"} {
		require.True(t, rows[q], "a row answers %q", q)
	}
	require.Greater(t, queries, 10)
}

// provisionedUID is the uid of the Prometheus data source that Grafana's
// provisioning creates.
func provisionedUID(t *testing.T) string {
	t.Helper()
	var ds struct {
		APIVersion  int `yaml:"apiVersion"`
		Datasources []struct {
			Name, UID, Type, Access, URL string
			IsDefault                    bool `yaml:"isDefault"`
			Editable                     bool `yaml:"editable"`
		} `yaml:"datasources"`
	}
	decodeYAML(t, filepath.Join("grafana", "provisioning", "datasources", "prometheus.yml"), &ds)
	require.Len(t, ds.Datasources, 1)
	require.Equal(t, "prometheus", ds.Datasources[0].Type)
	require.Equal(t, "http://prometheus:9090", ds.Datasources[0].URL)
	return ds.Datasources[0].UID
}

// TestPrometheusConfig: the scrape reaches queuebox:8080, the readiness
// probe goes through the blackbox module that blackbox.yml defines, and
// the rule file is the one of this folder.
func TestPrometheusConfig(t *testing.T) {
	t.Parallel()
	var cfg struct {
		Global        map[string]string `yaml:"global"`
		RuleFiles     []string          `yaml:"rule_files"`
		ScrapeConfigs []struct {
			JobName       string              `yaml:"job_name"`
			MetricsPath   string              `yaml:"metrics_path"`
			Params        map[string][]string `yaml:"params"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
			RelabelConfigs []map[string]any `yaml:"relabel_configs"`
		} `yaml:"scrape_configs"`
	}
	decodeYAML(t, "prometheus.yml", &cfg)
	require.Equal(t, []string{"/etc/prometheus/alerts.yml"}, cfg.RuleFiles)
	jobs := map[string][]string{}
	for _, s := range cfg.ScrapeConfigs {
		for _, sc := range s.StaticConfigs {
			jobs[s.JobName] = append(jobs[s.JobName], sc.Targets...)
		}
	}
	require.Equal(t, []string{"queuebox:8080"}, jobs["queuebox"])
	require.Equal(t, []string{"http://queuebox:8080/health/ready"}, jobs["queuebox-ready"])

	var bb struct {
		Modules map[string]map[string]any `yaml:"modules"`
	}
	decodeYAML(t, "blackbox.yml", &bb)
	for _, s := range cfg.ScrapeConfigs {
		for _, m := range s.Params["module"] {
			require.Contains(t, bb.Modules, m, "job %s probes with a module of blackbox.yml", s.JobName)
		}
	}

	var prov struct {
		APIVersion int `yaml:"apiVersion"`
		Providers  []struct {
			Name, Folder, Type string
			DisableDeletion    bool              `yaml:"disableDeletion"`
			AllowUIUpdates     bool              `yaml:"allowUiUpdates"`
			Options            map[string]string `yaml:"options"`
		} `yaml:"providers"`
	}
	decodeYAML(t, filepath.Join("grafana", "provisioning", "dashboards", "queuebox.yml"), &prov)
	require.Len(t, prov.Providers, 1)
	require.Equal(t, "/var/lib/grafana/dashboards", prov.Providers[0].Options["path"])
}
