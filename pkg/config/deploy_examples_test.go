package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// repoRoot is the checkout root, two levels above this package.
const repoRoot = "../.."

// The configuration files that ship with the Compose stack and the local
// stack load with no warning: every key is a documented key.
func TestShippedConfigurationFilesLoad(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"compose/queuebox.yml", "deploy/local/queuebox.yml"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(repoRoot, file))
			require.NoError(t, err)
			cfg := mustLoad(t, testOptions(string(data), "QUEUEBOX_DATABASE_PASSWORD=from-compose"))
			require.Empty(t, cfg.Warnings())
		})
	}
}

// The ConfigMap of the Kubernetes manifests holds a complete queuebox.yml
// that loads with no warning once its file: secrets exist.
func TestKubernetesConfigMapLoads(t *testing.T) {
	t.Parallel()
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	data, err := os.ReadFile(filepath.Join(repoRoot, "deploy/kubernetes/configmap.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &cm))
	file := cm.Data["queuebox.yml"]
	require.NotEmpty(t, file)
	files := fakeFiles{testConfigFile: file}
	for _, ref := range secretFileRefs(file) {
		files[ref] = "secret-from-" + filepath.Base(ref) + "\n"
	}
	opts := testOptions(file)
	opts.ReadFile = files.read
	cfg := mustLoad(t, opts)
	require.Empty(t, cfg.Warnings())
	require.Equal(t, "secret-from-db-password", cfg.Database.Password.Reveal())
	for name, s := range cfg.Sources {
		if s.Kind == KindHTTP {
			require.NotNil(t, s.Auth, "source %s faces the internet through the Service, so it authenticates", name)
		}
	}
}

// secretFileRefs lists the paths of the file: references of a YAML text.
func secretFileRefs(text string) []string {
	var refs []string
	for _, line := range strings.Split(text, "\n") {
		if _, ref, ok := strings.Cut(line, ": file:"); ok {
			refs = append(refs, strings.TrimSpace(ref))
		}
	}
	return refs
}

// The Deployments of deploy/kubernetes (every shape, with each container's
// variables) are checked where the manifests live: deploy/kubernetes_test.go.
