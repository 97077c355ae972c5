package integration

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/integration/chaos"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// binary returns the path of a QueueBox binary, building all five once
// when QUEUEBOX_BIN_DIR is not set. The name "queuebox" is the
// one-process binary; any other name is a role (queuebox-<name>).
func binary(t *testing.T, name string) string {
	t.Helper()
	file := "queuebox-" + name
	if name == "queuebox" {
		file = name
	}
	if dir := os.Getenv("QUEUEBOX_BIN_DIR"); dir != "" {
		return filepath.Join(dir, file)
	}
	buildOnce.Do(func() {
		builtDir, buildErr = os.MkdirTemp("", "queuebox-bin-")
		if buildErr != nil {
			return
		}
		for _, s := range []string{"ingest", "relay", "deliver", "capture", ""} {
			out, dir := "queuebox-"+s, "./services/"+s
			if s == "" {
				out, dir = "queuebox", "./services/queuebox"
			}
			cmd := exec.Command("go", "build", "-o", filepath.Join(builtDir, out), dir)
			cmd.Dir = ".."
			if msg, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("build %s: %v\n%s", out, err, msg)
				return
			}
		}
	})
	require.NoError(t, buildErr)
	return filepath.Join(builtDir, file)
}

// database creates an empty database for one test and drops it after.
type database struct {
	Name string
	// JDBC is the database.url form; User and Password go beside it.
	JDBC string
	URL  string
}

func newDatabase(t *testing.T) database {
	t.Helper()
	env := pgtest.LoadEnv(t)
	name := fmt.Sprintf("qbit_%d_%04d", time.Now().UnixNano()%1e9, rand.IntN(1e4))
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, env.PostgresURL)
	require.NoError(t, err)
	defer admin.Close(ctx)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(t, err)
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), env.PostgresURL)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	cfg, err := pgx.ParseConfig(env.PostgresURL)
	require.NoError(t, err)
	return database{
		Name: name,
		JDBC: fmt.Sprintf("jdbc:postgresql://%s:%d/%s", cfg.Host, cfg.Port, name),
		URL:  fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name),
	}
}

// env returns the three minimal database variables.
func (d database) env() map[string]string {
	return map[string]string{
		"QUEUEBOX_DATABASE_URL":      d.JDBC,
		"QUEUEBOX_DATABASE_USERNAME": "postgres",
		"QUEUEBOX_DATABASE_PASSWORD": "sup3r-secret",
		// Tests run binaries side by side on one server; small pools keep
		// them within its connection limit. A test that needs more sets it.
		"QUEUEBOX_DATABASE_POOLSIZE": "5",
	}
}

// writerURL is URL for the test's own writes during an outage: the
// outage's terminations spare sessions with this application_name.
func (d database) writerURL() string { return d.URL + "&application_name=" + testWriter }

func (d database) connect(t *testing.T) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), d.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// scan runs one query on a connection of its own, scans its row into dst
// and closes the connection: for checks that a test polls, where a
// connection kept until the test ends per poll would use up the server's
// connections on a slow machine.
func (d database) scan(t *testing.T, query string, args []any, dst ...any) error {
	t.Helper()
	c, err := pgx.Connect(context.Background(), d.URL)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	return c.QueryRow(context.Background(), query, args...).Scan(dst...)
}

// process is a running binary with its output captured.
type process struct {
	name   string
	cmd    *exec.Cmd
	out    *syncBuffer
	done   chan struct{}
	err    error
	port   int
	killed bool
}

// syncBuffer is the output buffer that the chaos suite's processes use.
type syncBuffer = chaos.SyncBuffer

// start runs a binary with exactly the given environment (plus PATH and
// HOME). The process is stopped when the test ends, and its output is
// printed when the test failed.
func start(t *testing.T, name string, env map[string]string, args ...string) *process {
	t.Helper()
	return startIn(t, "", name, env, args...)
}

// startIn is start with the working directory dir ("" is the test's).
func startIn(t *testing.T, dir, name string, env map[string]string, args ...string) *process {
	t.Helper()
	p := &process{name: name, out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(binary(t, name), args...)
	p.cmd.Dir = dir
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "QUEUEBOX_CONFIG_FILE=/nonexistent/queuebox.yml"}
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	require.NoError(t, p.cmd.Start())
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.stop(t, 30*time.Second)
		if t.Failed() {
			t.Logf("output of %s:\n%s", name, p.out.String())
		}
	})
	return p
}

// startServing starts a binary on a free data port and waits until it
// answers /health/live.
func startServing(t *testing.T, name string, env map[string]string) *process {
	t.Helper()
	p := startOnFreePort(t, name, env)
	p.waitHTTP(t, "/health/live", http.StatusOK)
	return p
}

// startOnFreePort starts a binary on a free data port without waiting.
func startOnFreePort(t *testing.T, name string, env map[string]string) *process {
	t.Helper()
	port := freePort(t)
	p := start(t, name, with(env, "QUEUEBOX_SERVER_HTTPPORT", fmt.Sprint(port)))
	p.port = port
	return p
}

func with(env map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func (p *process) url(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", p.port, path) }

func (p *process) waitHTTP(t *testing.T, path string, code int) {
	t.Helper()
	require.Eventually(t, func() bool {
		select {
		case <-p.done:
			t.Fatalf("%s exited: %v\n%s", p.name, p.err, p.out.String())
		default:
		}
		resp, err := http.Get(p.url(path))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == code
	}, 60*time.Second, 50*time.Millisecond, "%s %s", p.name, path)
}

// signal sends SIGTERM and returns the exit code, failing after timeout.
func (p *process) terminate(t *testing.T, timeout time.Duration) int {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	return p.wait(t, timeout)
}

func (p *process) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		t.Fatalf("%s did not exit within %v", p.name, timeout)
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *process) kill() {
	p.killed = true
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

func (p *process) stop(t *testing.T, timeout time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.kill()
	}
}

// handedOut holds the ports freePort gave out in this test process: the
// kernel may offer a just-closed port again, and two binaries (or the data
// and management ports of one) must not be given the same one.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

func freePort(t *testing.T) int {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		port := l.Addr().(*net.TCPAddr).Port
		require.NoError(t, l.Close())
		if !handedOut.ports[port] {
			handedOut.ports[port] = true
			return port
		}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func post(t *testing.T, url, body string, header ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String(), resp.Header
}
