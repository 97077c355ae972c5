package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goWorker runs the Go worker steps of the second tutorial in the copy: the page's
// mkdir and go mod init, its main.go with the connection string of dev's
// cluster, and "go mod tidy && go run ." as a build that needs no network
// (the page's module takes the versions this repository pins, and the
// client from this repository), then starts the worker. The test's end
// stops it. The returned buffer holds what the worker prints.
func (w *devTutorial) goWorker(t *testing.T) *syncBuffer {
	t.Helper()
	w.run(t, w.block(t, "mkdir orders-worker && cd orders-worker", "go mod init"))
	dir := filepath.Join(w.dir, "orders-worker")
	main := blockUnder(t, w.page, "go", "In Go", "NewInboxWorker")
	main = strings.ReplaceAll(main, "postgres://queuebox:queuebox@localhost:5432/", "postgres://postgres@127.0.0.1:"+w.pgPort+"/")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644))
	require.Contains(t, w.block(t, "go mod tidy", "go run ."), "go mod tidy")

	client, err := filepath.Abs(filepath.Join("..", "clients", "go"))
	require.NoError(t, err)
	gomod := func(args ...string) {
		t.Helper()
		c := exec.Command("go", append([]string{"mod", "edit"}, args...)...)
		c.Dir = dir
		out, err := c.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	gomod("-replace", "github.com/alternayte/queuebox/clients/go="+client,
		"-require", "github.com/alternayte/queuebox/clients/go@v0.0.0-00010101000000-000000000000")
	pins, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	for _, line := range strings.Split(string(pins), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (strings.HasPrefix(f[0], "github.com/jackc/") || f[0] == "golang.org/x/sync" || f[0] == "golang.org/x/text") {
			gomod("-require", f[0]+"@"+f[1])
		}
	}
	sums, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sums, 0o644))
	build := exec.Command("go", "build", "-o", "orders-worker", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build the page's worker: %s", out)

	logs := &syncBuffer{}
	cmd := exec.Command(filepath.Join(dir, "orders-worker"))
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, logs, logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("output of the page's worker:\n%s", logs.String())
		}
	})
	return logs
}
