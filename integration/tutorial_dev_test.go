package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// tutorialFiles are the files of the repository that the two tutorials of
// docs/tutorials name.
var tutorialFiles = []string{"docker-compose.yml", ".env.example", "examples/queuebox.yml"}

// devTutorial walks one tutorial page against queuebox dev (make run's
// stack) in a copy of the files the page names, and records which bash
// blocks of the page it ran, so a new block on the page fails the test
// until the walk covers it.
type devTutorial struct {
	page   string
	dir    string // the copy: the page's "queuebox" directory
	dev    *process
	pgPort string
	data   string
	ran    map[string]bool
}

// newDevTutorial stands for the page's "git clone … && cd queuebox": the
// walk works in a fresh copy of the files the page names.
func newDevTutorial(t *testing.T, page string) *devTutorial {
	t.Helper()
	w := &devTutorial{page: page, dir: t.TempDir(), ran: map[string]bool{}}
	w.block(t, "git clone https://github.com/alternayte/queuebox.git", "cd queuebox")
	for _, f := range tutorialFiles {
		b, err := os.ReadFile(filepath.Join("..", f))
		require.NoError(t, err, "the page names %s", f)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(w.dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(w.dir, f), b, 0o644))
	}
	return w
}

// block returns the page's bash block that holds every marker and marks
// it as run.
func (w *devTutorial) block(t *testing.T, markers ...string) string {
	t.Helper()
	for _, b := range pageBlocks(t, w.page) {
		if b.Lang != "bash" {
			continue
		}
		all := true
		for _, m := range markers {
			all = all && strings.Contains(b.Text, m)
		}
		if all {
			w.ran[b.Text] = true
			return b.Text
		}
	}
	t.Fatalf("no bash block with %q in %s", markers, w.page)
	return ""
}

// up maps "docker compose -f docker-compose.yml --env-file .env.example up
// -d --build" to queuebox dev: Docker is not there, so dev's private
// PostgreSQL stands for the postgres service, its demo receiver for the
// receiver service, and --config examples/queuebox.yml reads the file the
// Compose stack mounts (dev's database and ports win over the file's).
func (w *devTutorial) up(t *testing.T) {
	t.Helper()
	cmd := w.block(t, "up -d --build")
	require.Contains(t, cmd, "docker compose -f docker-compose.yml --env-file .env.example up -d --build")
	for _, f := range []string{"docker-compose.yml", ".env.example"} {
		require.FileExists(t, filepath.Join(w.dir, f), "the page's command names %s", f)
	}
	port, receiverPort := freePort(t), freePort(t)
	w.dev = startIn(t, w.dir, "queuebox", nil, "dev", "--config", "examples/queuebox.yml",
		"--http-port", fmt.Sprint(port), "--receiver-port", fmt.Sprint(receiverPort))
	w.dev.port = port
	var m []string
	require.Eventually(t, func() bool { m = devLine.FindStringSubmatch(w.dev.out.String()); return m != nil },
		90*time.Second, 20*time.Millisecond, "queuebox dev prints where its cluster is")
	w.pgPort, w.data = m[1], m[2]
	// "curl http://localhost:8080/health", once ready as the page says.
	health := w.block(t, "curl http://localhost:8080/health")
	require.Eventually(t, func() bool {
		return strings.HasPrefix(w.try(t, health), `{"status":"healthy"`)
	}, 60*time.Second, 50*time.Millisecond, "the page's health answer")
}

// composePsql is the page's psql in the postgres container.
var composePsql = regexp.MustCompile(`docker compose -f docker-compose\.yml exec (-T )?postgres psql -U queuebox -d queuebox`)

// translate turns a page's command into one for dev's stack: psql
// against dev's cluster (its user postgres in place of the Compose
// stack's queuebox) and curl at dev's data port.
func (w *devTutorial) translate(cmd string) string {
	if w.dev == nil {
		return cmd // a file step before the stack starts
	}
	cmd = composePsql.ReplaceAllString(cmd, "psql -X -h 127.0.0.1 -p "+w.pgPort+" -U postgres -d queuebox")
	return strings.ReplaceAll(cmd, "http://localhost:8080", fmt.Sprintf("http://127.0.0.1:%d", w.dev.port))
}

// try runs a page's command with bash in the copy and returns its
// standard output, or "" when it fails.
func (w *devTutorial) try(t *testing.T, cmd string) string {
	t.Helper()
	c := exec.Command("bash", "-e", "-c", w.translate(cmd))
	c.Dir = w.dir
	out, err := c.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// run runs a page's command like try, requires it to succeed and
// returns its standard output.
func (w *devTutorial) run(t *testing.T, cmd string) string {
	t.Helper()
	c := exec.Command("bash", "-e", "-c", w.translate(cmd))
	c.Dir = w.dir
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	require.NoError(t, err, "%s\n%s%s", cmd, out, stderr.String())
	return string(out)
}

// table is psql's output as a page shows it: without the blank line psql
// ends a table with, and without trailing spaces.
func table(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// output returns the page's text block that shows what a command prints:
// the first one under heading.
func (w *devTutorial) output(t *testing.T, heading string) string {
	t.Helper()
	return blockUnder(t, w.page, "text", heading)
}

// down maps "docker compose -f docker-compose.yml down -v" to Ctrl-C on
// queuebox dev, which stops everything and removes its cluster.
func (w *devTutorial) down(t *testing.T) {
	t.Helper()
	require.Contains(t, w.block(t, "down -v"), "docker compose -f docker-compose.yml down -v")
	require.NoError(t, w.dev.cmd.Process.Signal(syscall.SIGINT))
	require.Equal(t, 0, w.dev.wait(t, 60*time.Second), w.dev.out.String())
	require.NoDirExists(t, w.data)
}

// requireAllRan fails when a bash block of the page was neither run nor
// named in skipped.
func (w *devTutorial) requireAllRan(t *testing.T, skipped ...string) {
	t.Helper()
next:
	for _, b := range pageBlocks(t, w.page) {
		if b.Lang != "bash" || w.ran[b.Text] {
			continue
		}
		for _, s := range skipped {
			if strings.Contains(b.Text, s) {
				continue next
			}
		}
		t.Errorf("the walk of %s does not run the block:\n%s", w.page, b.Text)
	}
}

// TestTutorialFirstOutboxMessageOnMakeRun runs the first tutorial of
// docs/tutorials against make run's stack: the page's commands with the
// page's paths, on queuebox dev with the repository's examples/queuebox.yml.
func TestTutorialFirstOutboxMessageOnMakeRun(t *testing.T) {
	t.Parallel()
	w := newDevTutorial(t, firstMessagePage)
	// "Read the route": the file holds the page's fragment as it stands.
	route := blockUnder(t, w.page, "yaml", "Read the route", "webhook-api")
	file, err := os.ReadFile(filepath.Join(w.dir, "examples", "queuebox.yml"))
	require.NoError(t, err)
	require.Contains(t, string(file), strings.TrimPrefix(route, "# fragment\n"))
	w.up(t)

	require.Equal(t, "BEGIN\nINSERT 0 1\nCOMMIT\n", w.run(t, w.block(t, "INSERT INTO outbox")))

	// "docker compose logs receiver": dev prints its receiver's lines with
	// "receiver: " where Compose prints "receiver-1 | ".
	w.block(t, "logs receiver")
	lines := strings.Split(strings.TrimSpace(w.output(t, "Watch the delivery")), "\n")
	want := "receiver: " + strings.TrimPrefix(lines[len(lines)-1], "receiver-1 | ")
	require.Eventually(t, func() bool { return strings.Contains(w.dev.out.String(), want+"\n") },
		60*time.Second, 20*time.Millisecond, "the receiver prints %q", want)

	query := w.block(t, "SELECT topic, key, state, attempt FROM outbox")
	shown := w.output(t, "See the row in state")
	require.Eventually(t, func() bool { return table(w.try(t, query)) == table(shown) }, 60*time.Second, 50*time.Millisecond,
		"psql prints what the page shows:\n%s", shown)
	w.down(t)
	w.requireAllRan(t)
}

// TestTutorialReceiveAWebhookOnMakeRun runs the second tutorial of
// docs/tutorials against make run's stack: the page's append to
// examples/queuebox.yml, its curl and psql commands, its Go worker, and the
// restore of the file at the end.
func TestTutorialReceiveAWebhookOnMakeRun(t *testing.T) {
	t.Parallel()
	w := newDevTutorial(t, receiveWebhookPage)
	orig, err := os.ReadFile(filepath.Join(w.dir, "examples", "queuebox.yml"))
	require.NoError(t, err)
	w.run(t, w.block(t, "cat >> examples/queuebox.yml"))
	file, err := os.ReadFile(filepath.Join(w.dir, "examples", "queuebox.yml"))
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(file), blockUnder(t, w.page, "yaml", "Add a pull source", "sources:")),
		"the file ends with the source the page shows")
	w.up(t)

	accepted := w.run(t, w.block(t, "curl -i", `"id":"order-1"`))
	require.True(t, strings.HasPrefix(accepted, firstLine(w.output(t, "Post the webhook"))), accepted)
	require.Regexp(t, `\{"messageId":"[0-9a-f-]{36}"\}\s*$`, accepted)
	duplicate := w.run(t, w.block(t, "curl -i", `"id":"order-1"`))
	require.True(t, strings.HasPrefix(duplicate, firstLine(w.output(t, "Post it again"))), duplicate)
	require.True(t, strings.HasSuffix(strings.TrimSpace(duplicate), `{"status":"duplicate"}`), duplicate)

	require.Equal(t, table(w.output(t, "Look at the stored row")), table(w.run(t, w.block(t, "SELECT source, idempotency_key, consumption, state FROM inbox"))))
	require.Equal(t, "CREATE TABLE\n", w.run(t, w.block(t, "CREATE TABLE IF NOT EXISTS orders")))

	worker := w.goWorker(t)
	require.Eventually(t, func() bool { return strings.Contains(worker.String(), "Stored the order order-1.") },
		120*time.Second, 50*time.Millisecond, "the worker prints the page's line")
	check := w.block(t, "SELECT id, total FROM orders")
	shown := w.output(t, "Check the result")
	require.Eventually(t, func() bool { return table(w.try(t, check)) == table(shown) }, 60*time.Second, 50*time.Millisecond,
		"psql prints what the page shows:\n%s", shown)
	require.Regexp(t, `^\{"messageId":"[0-9a-f-]{36}"\}$`, strings.TrimSpace(w.run(t, w.block(t, `"id":"order-2"`))))
	require.Eventually(t, func() bool { return strings.Contains(worker.String(), "Stored the order order-2.") },
		60*time.Second, 50*time.Millisecond, "the worker takes the new order")

	w.down(t)
	// "git checkout examples/queuebox.yml": the copy is no checkout, so
	// the repository's file is written back and compared.
	require.Contains(t, w.block(t, "git checkout examples/queuebox.yml"), "down -v")
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "examples", "queuebox.yml"), orig, 0o644))
	// The TypeScript worker (examples/pull/typescript) runs in
	// TestAWebhookOnAPullSourceIsConsumedByTheTypeScriptWorker.
	w.requireAllRan(t, "npm ")
}
