package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// makeAt runs make in the repository with only PATH and HOME from the
// environment, so no QUEUEBOX_ variable of the test's own comes in.
func makeAt(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = ".."
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make %v:\n%s", args, out)
	return string(out)
}

// TestMakeRunBuildsOnlyQueueboxAndKeepsTestVariablesOut: make run builds
// the one binary queuebox dev runs, not the four role binaries, and no
// test-only QUEUEBOX_ variable reaches the environment of its recipes
// (each start would warn that it matches no configuration key); the
// unit tests still get the JSONata suite's folder.
func TestMakeRunBuildsOnlyQueueboxAndKeepsTestVariablesOut(t *testing.T) {
	t.Parallel()
	var builds []string
	for l := range strings.Lines(makeAt(t, "-n", "run")) {
		if strings.Contains(l, "go build") && !strings.HasPrefix(strings.TrimSpace(l), "echo") {
			builds = append(builds, strings.TrimSpace(l))
		}
	}
	require.Len(t, builds, 1, "one go build: %q", builds)
	require.True(t, strings.HasSuffix(builds[0], "./services/queuebox"), builds[0])

	env := makeAt(t, "-s", "--eval", "qb-env: ; @env", "qb-env", "JSONATA_SUITE=/suite")
	for l := range strings.Lines(env) {
		require.False(t, strings.HasPrefix(l, "QUEUEBOX_"), "a recipe's environment holds %q", l)
	}
	require.Contains(t, makeAt(t, "-n", "test-unit", "JSONATA_SUITE=/suite"), "QUEUEBOX_JSONATA_SHARED=/suite go test")
}
