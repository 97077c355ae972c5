package integration

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// devLine finds where queuebox dev put its cluster.
var devLine = regexp.MustCompile(`PostgreSQL: 127\.0\.0\.1:(\d+) \(user postgres, database queuebox\), data in (\S+)`)

// TestDevRunsEverythingAndLeavesNothing: queuebox dev starts its own
// PostgreSQL, every role with capture and the demo receiver; a webhook and
// an outbox row reach the receiver; SIGINT stops everything, and neither
// a postgres process of its folder nor the folder remains.
func TestDevRunsEverythingAndLeavesNothing(t *testing.T) {
	t.Parallel()
	port, receiverPort := freePort(t), freePort(t)
	p := start(t, "queuebox", nil, "dev", "--http-port", fmt.Sprint(port), "--receiver-port", fmt.Sprint(receiverPort))
	p.port = port
	p.waitHTTP(t, "/health/ready", http.StatusOK)
	var m []string
	require.Eventually(t, func() bool { m = devLine.FindStringSubmatch(p.out.String()); return m != nil },
		30*time.Second, 20*time.Millisecond, "the lines to try")
	pgPort, dir := m[1], m[2]
	require.DirExists(t, dir)
	require.Contains(t, p.out.String(), "curl -i -X POST http://127.0.0.1:"+fmt.Sprint(port)+"/inbox/webhooks")

	code, body, _ := post(t, p.url("/inbox/webhooks"), `{"id":"evt-1","type":"payment.completed","orderId":"1001"}`)
	require.Equal(t, http.StatusAccepted, code, body)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:"+pgPort+"/queuebox?sslmode=disable")
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, key, payload) VALUES ('order.created', 'order-1001', '{"orderId":"1001","amount":42}')`)
	require.NoError(t, err)
	var wal string
	require.NoError(t, conn.QueryRow(ctx, `SHOW wal_level`).Scan(&wal))
	require.Equal(t, "logical", wal)
	require.Eventually(t, func() bool {
		out := p.out.String()
		return strings.Contains(out, `receiver: delivered POST /events {"id":"evt-1","type":"payment.completed","orderId":"1001"}`) &&
			strings.Contains(out, `receiver: delivered POST /events {"amount":42,"orderId":"1001"}`)
	}, 60*time.Second, 20*time.Millisecond, "the webhook and the outbox row reach the receiver")

	require.Eventually(t, func() bool {
		_, health := get(t, p.url("/health/ready"))
		return strings.Contains(health, `"outbox-capture":{"status":"up"}`)
	}, 60*time.Second, 20*time.Millisecond, "capture streams from the private cluster")
	// The connections of one process with capture: the pool (poolSize 10
	// in the dev configuration), the LISTEN connection, and capture's
	// replication connection, lock connection and pool of two.
	var total, walsenders int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE backend_type = 'walsender')
		FROM pg_stat_activity WHERE datname = 'queuebox' AND pid <> pg_backend_pid()`).Scan(&total, &walsenders))
	t.Logf("queuebox dev holds %d connections, %d of them replication", total, walsenders)
	require.Equal(t, 1, walsenders, "one replication connection")
	require.LessOrEqual(t, total, 10+1+1+1+2)
	require.NoError(t, conn.Close(ctx))

	require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	require.Equal(t, 0, p.wait(t, 60*time.Second), p.out.String())
	require.NoDirExists(t, dir)
	require.Empty(t, processesWith(t, dir), "no process of the cluster remains")
}

// TestDevRefusesATakenPortBeforeInitdb: with its data port held by
// another server that answers ready (another QueueBox, say), queuebox
// dev stops before it creates a cluster, names the port and the flag
// that moves it, and prints no banner claiming that port.
func TestDevRefusesATakenPortBeforeInitdb(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(other.Close)
	port := other.Listener.Addr().(*net.TCPAddr).Port
	p := start(t, "queuebox", nil, "dev", "--http-port", fmt.Sprint(port), "--receiver-port", fmt.Sprint(freePort(t)))
	require.Equal(t, 1, p.wait(t, 60*time.Second), p.out.String())
	out := p.out.String()
	require.Contains(t, out, fmt.Sprintf("queuebox dev: port %d on 127.0.0.1 (--http-port) is taken", port))
	require.NotContains(t, out, "QueueBox is ready")
	require.NotContains(t, out, "PostgreSQL and the schema ready", "no cluster was made")
}

// processesWith lists the command lines of the processes that name dir.
func processesWith(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := filepath.Glob("/proc/[0-9]*/cmdline")
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil {
			continue // the process ended meanwhile
		}
		if line := strings.ReplaceAll(string(b), "\x00", " "); strings.Contains(line, dir) {
			out = append(out, line)
		}
	}
	return out
}
