package deploy

import (
	"maps"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

const chartDir = "helm/queuebox"

// captureConfig is what a value set adds to the configuration for the
// capture role: the mode the database supports.
var captureConfig = map[string]any{"outbox": map[string]any{"shutdownTimeoutMs": 30000, "capture": map[string]any{"mode": "postgres-logical"}}}

// valueSets are the values the tests render the chart with, each over the
// chart's values.yaml.
var valueSets = map[string]map[string]any{
	"defaults": {},
	"single with everything on": {
		"single":              map[string]any{"replicas": 3},
		"ingress":             map[string]any{"enabled": true},
		"migrate":             map[string]any{"job": true},
		"podDisruptionBudget": map[string]any{"enabled": true},
		"metrics": map[string]any{
			"serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "prom"}},
			"prometheusRule": map[string]any{"enabled": true},
		},
	},
	"roles": {"mode": "roles"},
	"roles with capture, ingress and monitoring": {
		"mode":    "roles",
		"roles":   map[string]any{"deliver": map[string]any{"replicas": 5}, "capture": map[string]any{"enabled": true}},
		"config":  captureConfig,
		"ingress": map[string]any{"enabled": true},
		"metrics": map[string]any{
			"serviceMonitor": map[string]any{"enabled": true},
			"prometheusRule": map[string]any{"enabled": true},
		},
	},
	"roles with a migrate job and no budget": {
		"mode":                "roles",
		"migrate":             map[string]any{"job": true},
		"podDisruptionBudget": map[string]any{"enabled": false},
	},
}

// render renders the chart with the values over values.yaml (validating
// them against values.schema.json, as helm install does) and decodes every
// object strictly.
func render(t *testing.T, values map[string]any) []object {
	t.Helper()
	ch := loadChart(t)
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: "queuebox", Namespace: "apps", IsInstall: true, Revision: 1}, chartutil.DefaultCapabilities)
	require.NoError(t, err)
	files, err := engine.Render(ch, vals)
	require.NoError(t, err)
	names := sort.StringSlice(slicesOf(maps.Keys(files)))
	names.Sort()
	var objs []object
	for _, name := range names {
		if strings.HasSuffix(name, ".tpl") || strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		objs = append(objs, decodeStrict(t, name, []byte(files[name]))...)
	}
	return objs
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	require.NoError(t, err)
	require.NoError(t, ch.Validate(), "Chart.yaml")
	return ch
}

func slicesOf(seq func(func(string) bool)) []string {
	var out []string
	seq(func(s string) bool { out = append(out, s); return true })
	return out
}

// merge lays b over a, map by map, as Helm coalesces user values.
func merge(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = merge(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// chartVariant turns the rendered objects into the variant the Kubernetes
// manifest tests check, so every pod rule holds for the chart too (the
// release name queuebox gives the ConfigMap the manifests' name).
func chartVariant(t *testing.T, objs []object) variant {
	t.Helper()
	v := variant{pvcs: map[string]bool{}}
	v.add(objs)
	require.NotEmpty(t, v.config, "the chart's ConfigMap holds queuebox.yml")
	return v
}

// defaultValues reads the chart's values.yaml.
func defaultValues(t *testing.T) map[string]any {
	t.Helper()
	defaults, err := chartutil.ReadValuesFile(chartDir + "/values.yaml")
	require.NoError(t, err)
	return defaults
}

// helm lint passes on the chart with every value set: Chart.yaml, the
// templates and values.schema.json.
func TestHelmChartLints(t *testing.T) {
	t.Parallel()
	defaults := defaultValues(t)
	for name, values := range valueSets {
		t.Run(name, func(t *testing.T) {
			linter := lint.All(chartDir, merge(defaults, values), "apps", false)
			for _, m := range linter.Messages {
				require.Less(t, m.Severity, support.WarningSev, m.Error())
			}
		})
	}
}

// Every value set renders, decodes strictly into the Kubernetes API types,
// and gives pods that follow the rules of the plain manifests; every object
// carries the chart's labels, and every Service and budget selects the
// pods of one Deployment.
func TestHelmChartRendersBothModes(t *testing.T) {
	t.Parallel()
	defaults := defaultValues(t)
	for name, values := range valueSets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			vals := merge(defaults, values)
			objs := render(t, values)
			v := chartVariant(t, objs)
			kinds := map[string]int{}
			for _, o := range objs {
				kinds[o.Kind]++
				requireChartLabels(t, o)
			}

			roles := map[string]*appsv1.Deployment{}
			for _, d := range v.deployments {
				roles[d.Spec.Template.Labels["app.kubernetes.io/component"]] = d
				checkPod(t, v, d)
			}
			if vals["mode"] == "single" {
				require.Equal(t, []string{"all"}, slicesOf(maps.Keys(roles)))
				require.EqualValues(t, vals["single"].(map[string]any)["replicas"], *roles["all"].Spec.Replicas)
				require.Empty(t, roles["all"].Spec.Template.Spec.Containers[0].Command)
			} else {
				rolesVals := vals["roles"].(map[string]any)
				for _, role := range []string{"ingest", "relay", "deliver"} {
					require.EqualValues(t, rolesVals[role].(map[string]any)["replicas"], *roles[role].Spec.Replicas)
					require.Equal(t, []string{"queuebox-" + role}, roles[role].Spec.Template.Spec.Containers[0].Command)
				}
				checkChartCapture(t, v, roles["capture"], rolesVals["capture"].(map[string]any)["enabled"] == true)
			}

			for _, o := range objs {
				switch x := o.Value.(type) {
				case *corev1.Service:
					requireSelectsOne(t, "Service "+x.Name, x.Spec.Selector, v.deployments)
				case *policyv1.PodDisruptionBudget:
					requireSelectsOne(t, "PodDisruptionBudget "+x.Name, x.Spec.Selector.MatchLabels, v.deployments)
				}
			}

			migrate := vals["migrate"].(map[string]any)["job"] == true
			require.Equal(t, migrate, kinds["Job"] == 1)
			if migrate {
				checkMigrateJob(t, v, v.jobs[0], "queuebox-migrate-config", "queuebox-secrets")
				requireHookConfig(t, objs, v.config)
			}
			for _, d := range v.deployments {
				cfg := containerConfig(t, v, d.Spec.Template.Spec.Containers[0])
				require.Equal(t, !migrate, cfg.Database.Migrate, d.Name)
			}
			metrics := vals["metrics"].(map[string]any)
			require.Equal(t, metrics["serviceMonitor"].(map[string]any)["enabled"] == true, kinds["ServiceMonitor"] == 1)
			require.Equal(t, metrics["prometheusRule"].(map[string]any)["enabled"] == true, kinds["PrometheusRule"] == 1)
			require.Equal(t, vals["ingress"].(map[string]any)["enabled"] == true, kinds["Ingress"] == 1)
			budgets := 0
			if vals["podDisruptionBudget"].(map[string]any)["enabled"] == true {
				budgets = len(v.deployments)
				if _, ok := roles["capture"]; ok {
					budgets--
				}
			}
			require.Equal(t, budgets, kinds["PodDisruptionBudget"])
			checkChartMonitoring(t, objs, v)
		})
	}
}

// The schema refuses values that would render a broken release.
func TestHelmValuesSchemaRefuses(t *testing.T) {
	t.Parallel()
	ch := loadChart(t)
	for name, values := range map[string]map[string]any{
		"unknown mode":              {"mode": "both"},
		"negative replicas":         {"single": map[string]any{"replicas": -1}},
		"unknown top-level key":     {"replica": 2},
		"a port out of range":       {"ports": map[string]any{"http": 70000}},
		"ports in config":           {"config": map[string]any{"server": map[string]any{"managementPort": 9091}}},
		"an unknown config key":     {"config": map[string]any{"outbox": map[string]any{"batchSise": 10}}},
		"a config value too small":  {"config": map[string]any{"database": map[string]any{"poolSize": 0}}},
		"capture size without unit": {"roles": map[string]any{"capture": map[string]any{"persistence": map[string]any{"size": "1"}}}},
		"a grace period of 5 s":     {"terminationGracePeriodSeconds": 5},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: "queuebox", Namespace: "apps"}, chartutil.DefaultCapabilities)
			require.Error(t, err)
		})
	}
	// A grace period the schema allows but the shutdown timeout does not.
	vals, err := chartutil.ToRenderValues(ch, map[string]any{"terminationGracePeriodSeconds": 60}, chartutil.ReleaseOptions{Name: "queuebox", Namespace: "apps"}, chartutil.DefaultCapabilities)
	require.NoError(t, err)
	_, err = engine.Render(ch, vals)
	require.ErrorContains(t, err, "terminationGracePeriodSeconds must stay above")
}

func checkChartCapture(t *testing.T, v variant, capture *appsv1.Deployment, enabled bool) {
	t.Helper()
	if !enabled {
		require.Nil(t, capture)
		require.Empty(t, v.pvcs)
		return
	}
	require.NotNil(t, capture)
	require.EqualValues(t, 1, *capture.Spec.Replicas)
	require.Equal(t, appsv1.RecreateDeploymentStrategyType, capture.Spec.Strategy.Type)
	cfg := containerConfig(t, v, capture.Spec.Template.Spec.Containers[0])
	require.True(t, cfg.Outbox.Capture.Enabled)
	vol := mountedVolume(t, capture, cfg.Outbox.Capture.StateDirectory)
	require.True(t, v.pvcs[vol.PersistentVolumeClaim.ClaimName])
	for _, d := range v.deployments {
		if d != capture {
			require.False(t, containerConfig(t, v, d.Spec.Template.Spec.Containers[0]).Outbox.Capture.Enabled, d.Name)
		}
	}
}

// The ServiceMonitor selects exactly the management Services, and the
// rules read the metrics of the monitoring page.
func checkChartMonitoring(t *testing.T, objs []object, v variant) {
	t.Helper()
	for _, o := range objs {
		switch x := o.Value.(type) {
		case *serviceMonitor:
			sel, err := labels.ValidatedSelectorFromSet(x.Spec.Selector.MatchLabels)
			require.NoError(t, err)
			var selected []string
			for _, s := range v.services {
				if sel.Matches(labels.Set(s.Labels)) {
					selected = append(selected, s.Name)
					require.Equal(t, "management", s.Spec.Ports[0].Name)
				}
			}
			require.Len(t, selected, len(v.deployments), "one management Service per Deployment")
			require.Equal(t, "management", x.Spec.Endpoints[0].Port)
			require.Equal(t, "/metrics", x.Spec.Endpoints[0].Path)
		case *prometheusRule:
			require.Equal(t, alertGroups(t), x.Spec, "the chart's rule groups are those of monitoring/alerts.yml: run make docs")
		}
	}
}

// alertGroups reads the rule groups of monitoring/alerts.yml into the
// shape of a PrometheusRule's spec.
func alertGroups(t *testing.T) any {
	t.Helper()
	data, err := os.ReadFile("monitoring/alerts.yml")
	require.NoError(t, err)
	var want prometheusRule
	require.NoError(t, yaml.UnmarshalStrict(data, &want.Spec))
	require.NotEmpty(t, want.Spec.Groups)
	return want.Spec
}

// requireChartLabels checks the labels every chart object carries.
func requireChartLabels(t *testing.T, o object) {
	t.Helper()
	meta, ok := o.Value.(interface{ GetLabels() map[string]string })
	require.True(t, ok, "%s %s has object metadata", o.Kind, o.Name)
	l := meta.GetLabels()
	for _, key := range []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/managed-by", "helm.sh/chart"} {
		require.NotEmpty(t, l[key], "%s %s: label %s", o.Kind, o.Name, key)
	}
}

func requireSelectsOne(t *testing.T, what string, sel map[string]string, deployments []*appsv1.Deployment) {
	t.Helper()
	var hit []string
	for _, d := range deployments {
		if labels.SelectorFromSet(sel).Matches(labels.Set(d.Spec.Template.Labels)) {
			hit = append(hit, d.Name)
		}
	}
	require.Len(t, hit, 1, "%s selects %v", what, hit)
}

// requireHookConfig: the migrate hook runs before the chart's ConfigMap
// exists, so its own copy is a hook that comes first and holds the same
// configuration.
func requireHookConfig(t *testing.T, objs []object, config string) {
	t.Helper()
	for _, o := range objs {
		if cm, ok := o.Value.(*corev1.ConfigMap); ok && cm.Name == "queuebox-migrate-config" {
			require.Equal(t, config, cm.Data["queuebox.yml"])
			require.Equal(t, "pre-install,pre-upgrade", cm.Annotations["helm.sh/hook"])
			require.Equal(t, "-1", cm.Annotations["helm.sh/hook-weight"])
			return
		}
	}
	t.Fatal("no ConfigMap queuebox-migrate-config for the migrate hook")
}
