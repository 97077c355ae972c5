package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// object is one decoded manifest: its kind, name and typed value (a
// pointer to a k8s.io/api type, or to one of the local CRD structs below).
type object struct {
	Kind, Name, Source string
	Value              any
}

// kinds maps apiVersion/kind to a constructor of the type that a manifest
// of that kind decodes into. A kind missing here fails the test: every
// shipped object is checked against a schema.
var kinds = map[string]func() any{
	"v1/ConfigMap":                                  func() any { return &corev1.ConfigMap{} },
	"v1/Service":                                    func() any { return &corev1.Service{} },
	"v1/Secret":                                     func() any { return &corev1.Secret{} },
	"v1/PersistentVolumeClaim":                      func() any { return &corev1.PersistentVolumeClaim{} },
	"v1/ServiceAccount":                             func() any { return &corev1.ServiceAccount{} },
	"apps/v1/Deployment":                            func() any { return &appsv1.Deployment{} },
	"batch/v1/Job":                                  func() any { return &batchv1.Job{} },
	"networking.k8s.io/v1/Ingress":                  func() any { return &networkingv1.Ingress{} },
	"policy/v1/PodDisruptionBudget":                 func() any { return &policyv1.PodDisruptionBudget{} },
	"monitoring.coreos.com/v1/ServiceMonitor":       func() any { return &serviceMonitor{} },
	"monitoring.coreos.com/v1/PrometheusRule":       func() any { return &prometheusRule{} },
	"kustomize.config.k8s.io/v1beta1/Kustomization": func() any { return &kustomization{} },
}

// serviceMonitor is the part of the Prometheus Operator's ServiceMonitor
// that the chart writes; decoding is strict, so a field outside it fails.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector          metav1.LabelSelector `json:"selector"`
		NamespaceSelector *struct {
			MatchNames []string `json:"matchNames"`
		} `json:"namespaceSelector,omitempty"`
		Endpoints []struct {
			Port          string `json:"port"`
			Path          string `json:"path"`
			Interval      string `json:"interval,omitempty"`
			ScrapeTimeout string `json:"scrapeTimeout,omitempty"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// prometheusRule is the part of the Prometheus Operator's PrometheusRule
// that the chart writes.
type prometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Alert       string            `json:"alert"`
				Expr        string            `json:"expr"`
				For         string            `json:"for,omitempty"`
				Labels      map[string]string `json:"labels,omitempty"`
				Annotations map[string]string `json:"annotations,omitempty"`
			} `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

// kustomization is the part of a kustomization.yaml that the manifests use.
type kustomization struct {
	metav1.TypeMeta `json:",inline"`
	Resources       []string `json:"resources"`
	Patches         []struct {
		Path string `json:"path"`
	} `json:"patches,omitempty"`
}

// docSeparator splits a YAML stream into documents.
var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// decodeStrict decodes every document of a YAML stream into its API type
// and fails the test on a duplicate key, an unknown kind or a field that
// the type does not have. source names the stream in messages.
func decodeStrict(t *testing.T, source string, data []byte) []object {
	t.Helper()
	var out []object
	for i, doc := range docSeparator.Split(string(data), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		obj, err := decodeDoc([]byte(doc))
		require.NoError(t, err, "%s, document %d", source, i+1)
		obj.Source = source
		out = append(out, obj)
	}
	return out
}

func decodeDoc(doc []byte) (object, error) {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return object{}, fmt.Errorf("yaml: %w", err)
	}
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(js, &meta); err != nil {
		return object{}, err
	}
	newValue, ok := kinds[meta.APIVersion+"/"+meta.Kind]
	if !ok {
		return object{}, fmt.Errorf("no schema for %s %s", meta.APIVersion, meta.Kind)
	}
	value := newValue()
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(value); err != nil {
		return object{}, fmt.Errorf("%s %s: %w", meta.Kind, meta.Metadata.Name, err)
	}
	return object{Kind: meta.Kind, Name: meta.Metadata.Name, Value: value}, nil
}

func stripComments(doc string) string {
	var keep []string
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// The strict decoder refuses what a lenient one would let through.
func TestDecodeStrictRefuses(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"unknown field":   "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {selectr: {app: a}}\n",
		"misplaced key":   "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {template: {spec: {containers: [{name: a, port: 1}]}}}\n",
		"duplicate key":   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nmetadata: {name: b}\n",
		"unknown kind":    "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
		"wrong type":      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: two}\n",
		"crd extra field": "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: a}\nspec: {endpoints: [{port: m, path: /metrics, honorLabel: true}]}\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := decodeDoc([]byte(doc))
			require.Error(t, err)
		})
	}
	objs := decodeStrict(t, "ok", []byte("# c\n---\napiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n"))
	require.Len(t, objs, 1)
	require.Equal(t, "a", objs[0].Name)
}
