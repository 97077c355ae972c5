package integration

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// probeExit runs queuebox health with env and args and returns its exit
// code and output.
func probeExit(t *testing.T, env map[string]string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binary(t, "queuebox"), append([]string{"health"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "QUEUEBOX_CONFIG_FILE=/nonexistent/queuebox.yml"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	require.NoError(t, err)
	return 0, string(out)
}

// TestHealthProbe: queuebox health exits 0 on a 2xx answer and 1 on any
// other or none; without --url it asks the management port of the
// configuration when one is set, else the data port.
func TestHealthProbe(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	mgmt := freePort(t)
	env := with(db.env(), "QUEUEBOX_SERVER_MANAGEMENTPORT", fmt.Sprint(mgmt))
	qb := startWithArgs(t, env)
	admin := &process{name: "queuebox management", port: mgmt, done: qb.done, out: qb.out}
	admin.waitHTTP(t, "/health/ready", http.StatusOK)

	code, out := probeExit(t, with(env, "QUEUEBOX_SERVER_HTTPPORT", fmt.Sprint(qb.port)))
	require.Equal(t, 0, code, out)
	require.Contains(t, out, fmt.Sprintf("127.0.0.1:%d/health answered 200", mgmt))

	code, out = probeExit(t, nil, "--url", qb.url("/health"))
	require.Equal(t, 1, code, "the data port answers 404 with a management port: %s", out)
	require.Contains(t, out, "answered 404")

	code, out = probeExit(t, nil, "--url", admin.url("/health/live"))
	require.Equal(t, 0, code, out)

	closed := freePort(t)
	code, out = probeExit(t, with(db.env(), "QUEUEBOX_SERVER_HTTPPORT", fmt.Sprint(closed)))
	require.Equal(t, 1, code, out)
	require.True(t, strings.Contains(out, "connection refused"), out)
}
