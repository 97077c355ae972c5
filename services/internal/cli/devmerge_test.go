package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
)

// TestDevConfig: without --config dev runs its demo; with it, the file's
// routing and values win over the dev defaults, while the database, the
// data port and capture stay dev's and the Compose receiver becomes the
// demo receiver. Both results load as a configuration.
func TestDevConfig(t *testing.T) {
	t.Parallel()
	user := filepath.Join(t.TempDir(), "queuebox.yml")
	require.NoError(t, os.WriteFile(user, []byte(`server:
  httpPort: 8080
database:
  url: jdbc:postgresql://postgres:5432/queuebox
  username: queuebox
  password: ${DB_PASSWORD:-queuebox}
outbox:
  pollIntervalMs: 100
destinations:
  webhook-api:
    type: http
    baseUrl: http://receiver:8080
    path: /webhook
routes:
  - topicPattern: "order.*"
    destination: webhook-api
sources:
  orders:
    type: http
    path: /orders
    idempotencyKeyPath: $.id
    consumption: pull
`), 0o600))
	for _, tc := range []struct {
		name    string
		file    string
		poll    int
		dests   []string
		sources []string
	}{
		{"demo", "", 1000, []string{"receiver"}, []string{"orders", "webhooks"}},
		{"file over the defaults", user, 100, []string{"webhook-api"}, []string{"orders"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			token := newDevToken()
			text, err := devConfig(devFlags{config: tc.file, httpPort: 18080, receiverPort: 19999, adminToken: token}, 15432, "/tmp/state")
			require.NoError(t, err)
			file := filepath.Join(t.TempDir(), "dev.yml")
			require.NoError(t, os.WriteFile(file, text, 0o600))
			cfg, err := config.Load(config.Options{Environ: []string{"QUEUEBOX_CONFIG_FILE=" + file}, NoPackaged: true})
			require.NoError(t, err, string(text))
			require.Equal(t, 18080, cfg.Server.HTTPPort)
			require.Equal(t, "jdbc:postgresql://127.0.0.1:15432/queuebox", cfg.Database.URL)
			require.Equal(t, "postgres", cfg.Database.Username)
			require.True(t, cfg.Outbox.Capture.Enabled)
			require.True(t, cfg.Admin.Enabled)
			require.Equal(t, token, cfg.Admin.Auth.Token.Reveal())
			require.Equal(t, []string{"localhost", "127.0.0.1", "::1"}, cfg.Server.AllowedHosts)
			require.Equal(t, tc.poll, cfg.Outbox.PollIntervalMs)
			require.ElementsMatch(t, tc.dests, keys(cfg.Destinations))
			require.ElementsMatch(t, tc.sources, keys(cfg.Sources))
			for _, d := range cfg.Destinations {
				require.Equal(t, "http://127.0.0.1:19999", d.BaseURL)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Every dev run has its own admin token, long enough for admin.auth and
// printed in the banner: a fixed one let any web page on the machine try
// it.
func TestDevTokenIsNewEachRun(t *testing.T) {
	t.Parallel()
	a, b := newDevToken(), newDevToken()
	require.NotEqual(t, a, b)
	require.GreaterOrEqual(t, len(a), 16)
	ports := devPorts{data: devPort{8080, "--http-port"}}
	require.Contains(t, devTry(5432, devFlags{httpPort: 8080, adminToken: a}, ports, "/tmp/dev", false), "Admin token of this run: "+a)
	require.NotContains(t, devTry(5432, devFlags{httpPort: 8080, adminToken: a}, ports, "/tmp/dev", false), "demo-admin-token")
}
