package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const checkedConfig = `database:
  url: jdbc:postgresql://db:5432/queuebox
  username: queuebox
  password: check-db-password
destinations:
  api:
    baseUrl: http://receiver:8080
    auth:
      type: header
      headerValue: Bearer check-header-token
routes:
  - topicPattern: "order.*"
    destination: api
`

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "queuebox.yml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

func checkConfig(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := runCLI(append([]string{"config"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// These tests set variables, so they do not run in parallel.

// A valid file prints the effective configuration, secrets masked, and
// the variables win over the file.
func TestConfigCheckPrintsTheEffectiveConfiguration(t *testing.T) {
	t.Setenv("QUEUEBOX_OUTBOX_BATCHSIZE", "42")
	t.Setenv("QUEUEBOX_CONFIG_FILE", "/nonexistent/queuebox.yml")
	code, stdout, stderr := checkConfig("check", writeConfig(t, checkedConfig))
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "batchSize: 42")
	require.Contains(t, stdout, "baseUrl: http://receiver:8080")
	require.NotContains(t, stdout, "check-db-password")
	require.NotContains(t, stdout, "check-header-token")
}

// Every problem is printed, each with its key and variable, and the exit
// code is 1.
func TestConfigCheckListsEveryProblem(t *testing.T) {
	t.Setenv("QUEUEBOX_SERVER_HTTPPORT", "0")
	broken := strings.Replace(checkedConfig, "destination: api", "destination: missing", 1) + "outbox:\n  concurrency: -1\n"
	code, stdout, stderr := checkConfig("check", writeConfig(t, broken))
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "3 problems")
	for _, want := range []string{
		"outbox.concurrency (QUEUEBOX_OUTBOX_CONCURRENCY): must be above 0",
		"routes[0].destination (QUEUEBOX_ROUTES_0_DESTINATION)",
		"server.httpPort (QUEUEBOX_SERVER_HTTPPORT)",
	} {
		require.Contains(t, stderr, want)
	}
}
