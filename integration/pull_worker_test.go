package integration

import (
	"bytes"
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAWebhookOnAPullSourceIsConsumedByTheGoWorker is the "Receive a
// webhook" tutorial end to end: a webhook posted to the pull source orders
// of the built queuebox-ingest stays pending in the inbox until the Go
// pull worker of examples/pull/go takes it, stores the order and
// completes the message in the same transaction. A repeat of the webhook
// is a duplicate, and the worker stores the order once.
func TestAWebhookOnAPullSourceIsConsumedByTheGoWorker(t *testing.T) {
	t.Parallel()
	webhookConsumedByPullWorker(t, startPullWorker)
}

// TestAWebhookOnAPullSourceIsConsumedByTheTypeScriptWorker is the same
// tutorial with the TypeScript worker of examples/pull/typescript, on the
// library of clients/typescript built from this checkout and run by node
// in its compiled form (Node 20 cannot run worker.ts as it is).
func TestAWebhookOnAPullSourceIsConsumedByTheTypeScriptWorker(t *testing.T) {
	t.Parallel()
	webhookConsumedByPullWorker(t, startTypeScriptPullWorker)
}

// webhookConsumedByPullWorker posts a webhook to the pull source orders,
// checks that it waits in the inbox, starts the worker, and waits until
// the worker has stored the order and completed the message; a repeat is
// a duplicate, and SIGTERM stops the worker cleanly.
func webhookConsumedByPullWorker(t *testing.T, startWorker func(*testing.T, database) *exec.Cmd) {
	db := newDatabase(t)
	ingest := startServing(t, "ingest", with(db.env(),
		"QUEUEBOX_SOURCES_ORDERS_TYPE", "http",
		"QUEUEBOX_SOURCES_ORDERS_PATH", "/orders",
		"QUEUEBOX_SOURCES_ORDERS_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_ORDERS_CONSUMPTION", "pull"))
	conn := db.connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, total INTEGER NOT NULL)`)
	require.NoError(t, err)

	body := `{"id":"order-1","total":42}`
	code, _, _ := post(t, ingest.url("/inbox/orders"), body)
	require.Equal(t, http.StatusAccepted, code)
	var state string
	require.NoError(t, conn.QueryRow(ctx, `SELECT state FROM inbox WHERE idempotency_key = 'order-1'`).Scan(&state))
	require.Equal(t, "pending", state, "a pull row waits for the application's worker")

	worker := startWorker(t, db)
	require.Eventually(t, func() bool {
		var total int
		err := conn.QueryRow(ctx, `SELECT total FROM orders WHERE id = 'order-1'`).Scan(&total)
		return err == nil && total == 42
	}, 120*time.Second, 50*time.Millisecond, "the worker stores the order")
	require.Eventually(t, func() bool {
		err := conn.QueryRow(ctx, `SELECT state FROM inbox WHERE idempotency_key = 'order-1'`).Scan(&state)
		return err == nil && state == "processed"
	}, 60*time.Second, 50*time.Millisecond, "the message is completed with the order")

	code, _, _ = post(t, ingest.url("/inbox/orders"), body)
	require.Equal(t, http.StatusOK, code, "a repeat is a duplicate")
	var orders int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM orders`).Scan(&orders))
	require.Equal(t, 1, orders)
	require.NoError(t, worker.Process.Signal(syscall.SIGTERM))
	require.NoError(t, worker.Wait(), "the worker stops cleanly on SIGTERM")
}

// startPullWorker builds and starts the Go worker of examples/pull/go
// against db; the test's end kills it if it still runs.
func startPullWorker(t *testing.T, db database) *exec.Cmd {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "orders-worker")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "examples", "pull", "go")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build the Go pull worker: %s", out)
	var logs bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Env = append(cmd.Environ(), "DATABASE_URL="+db.URL)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait() // its output is complete once it has been waited for
		if t.Failed() {
			t.Logf("output of the pull worker:\n%s", logs.String())
		}
	})
	return cmd
}

// startTypeScriptPullWorker builds the TypeScript client of
// clients/typescript (npm ci from its lockfile, npm run build), installs
// and compiles the worker of examples/pull/typescript on it, and starts
// dist/worker.js with node against db; the test's end kills it if it
// still runs. Both directories ignore their node_modules and dist.
func startTypeScriptPullWorker(t *testing.T, db database) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	npm := func(dir string, args ...string) {
		t.Helper()
		c := exec.CommandContext(ctx, "npm", append(args, "--no-audit", "--no-fund", "--loglevel=error")...)
		c.Dir = dir
		out, err := c.CombinedOutput()
		require.NoError(t, err, "npm %v in %s: %s", args, dir, out)
	}
	library := filepath.Join("..", "clients", "typescript")
	example := filepath.Join("..", "examples", "pull", "typescript")
	npm(library, "ci")
	npm(library, "run", "build")
	npm(example, "ci")
	npm(example, "run", "build")
	var logs syncBuffer
	cmd := exec.Command("node", filepath.Join("dist", "worker.js"))
	cmd.Dir = example
	cmd.Env = append(cmd.Environ(), "DATABASE_URL="+db.URL)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("output of the TypeScript pull worker:\n%s", logs.String())
		}
	})
	return cmd
}
