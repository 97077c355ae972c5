package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// outage cuts one test database off from the processes that use it,
// without touching the server that other tests share: it terminates the
// backends of that database and can refuse new connections to it.
type outage struct {
	t     *testing.T
	db    database
	admin *pgx.Conn // on the maintenance database, never terminated here
	mu    sync.Mutex
}

func newOutage(t *testing.T, db database) *outage {
	t.Helper()
	admin, err := pgx.Connect(context.Background(), pgtest.LoadEnv(t).PostgresURL)
	require.NoError(t, err)
	o := &outage{t: t, db: db, admin: admin}
	// A failed test must not leave the database closed for its drop (and
	// the drop forces the remaining sessions out anyway).
	t.Cleanup(func() {
		o.exec("ALTER DATABASE " + db.Name + " ALLOW_CONNECTIONS true")
		_ = admin.Close(context.Background())
	})
	return o
}

func (o *outage) exec(stmt string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := o.admin.Exec(context.Background(), stmt)
	require.NoError(o.t, err, stmt)
}

// testWriter is the application_name of the test's own sessions on the
// test database (database.writerURL). The outage never ends them: on a
// cold, busy machine a fresh connect and insert takes longer than a storm
// interval, and a test that must outrun its own storm starves itself.
const testWriter = "queuebox-test-writer"

// terminate ends every session of the test database except the test's own
// writers and returns how many.
func (o *outage) terminate() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	var n int
	err := o.admin.QueryRow(context.Background(), `SELECT count(*) FROM (
		SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name IS DISTINCT FROM $2) t`,
		o.db.Name, testWriter).Scan(&n)
	if err != nil {
		o.t.Errorf("terminate the sessions of %s: %v", o.db.Name, err)
	}
	return n
}

// block refuses new connections to the test database and ends the open
// ones, so the processes see it as unreachable until unblock.
func (o *outage) block() {
	o.exec("ALTER DATABASE " + o.db.Name + " ALLOW_CONNECTIONS false")
	o.terminate()
}

func (o *outage) unblock() { o.exec("ALTER DATABASE " + o.db.Name + " ALLOW_CONNECTIONS true") }

// storm terminates the sessions of the test database every interval until
// the returned stop is called; stop waits for the last termination.
func (o *outage) storm(every time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		ticker := time.NewTicker(every)
		defer ticker.Stop()
		for {
			o.terminate()
			select {
			case <-done:
				return
			case <-ticker.C:
			}
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { close(done); <-finished }) }
	o.t.Cleanup(stop)
	return stop
}

// readiness is one answer of /health/ready.
type readiness struct {
	code       int
	Status     string                       `json:"status"`
	Components map[string]map[string]string `json:"components"`
}

func (r readiness) up(name string) bool { return r.Components[name]["status"] == "up" }

func (r readiness) down(names ...string) bool {
	for _, n := range names {
		if r.Components[n]["status"] != "down" {
			return false
		}
	}
	return true
}

func ready(t *testing.T, p *process) readiness {
	t.Helper()
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(p.url("/health/ready"))
	require.NoError(t, err)
	defer resp.Body.Close()
	r := readiness{code: resp.StatusCode}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	return r
}

// waitDown waits until /health/ready answers 503 with every named
// component down.
func waitDown(t *testing.T, p *process, names ...string) readiness {
	t.Helper()
	var last readiness
	require.Eventually(t, func() bool {
		last = ready(t, p)
		return last.code == http.StatusServiceUnavailable && last.Status == "unhealthy" && last.down(names...)
	}, 30*time.Second, 50*time.Millisecond, "components %v down; last answer %+v", names, &last)
	return last
}

// waitHealthy waits until /health/ready answers 200 with every component up.
func waitHealthy(t *testing.T, p *process) {
	t.Helper()
	var last readiness
	require.Eventually(t, func() bool {
		last = ready(t, p)
		for name := range last.Components {
			if !last.up(name) {
				return false
			}
		}
		return last.code == http.StatusOK && last.Status == "healthy"
	}, 30*time.Second, 50*time.Millisecond, "healthy again; last answer %+v", &last)
}

// requireRunning fails when the process exited, and checks that its log
// names no database password.
func requireRunning(t *testing.T, p *process) {
	t.Helper()
	select {
	case <-p.done:
		t.Fatalf("%s exited during the outage: %v", p.name, p.err)
	default:
	}
	require.NotContains(t, p.out.String(), "sup3r-secret", "the log shows the database password")
}

// requireLogged checks that the process logged the database failure.
func requireLogged(t *testing.T, p *process, text string) {
	t.Helper()
	require.True(t, strings.Contains(p.out.String(), text), "%s logs %q", p.name, text)
}
