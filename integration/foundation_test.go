package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFourBinariesStartMigrateOnceAndStop starts the four roles at once
// against an empty database with only the three database variables. They
// must migrate once between them, report the database component ready,
// and exit 0 on SIGTERM.
func TestFourBinariesStartMigrateOnceAndStop(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	roles := []string{"ingest", "relay", "deliver", "capture"}
	// The four start within milliseconds of each other, so they race for
	// the migration; each is then waited for here, on the test goroutine
	// (a require in another goroutine cannot stop the test).
	procs := make([]*process, len(roles))
	for i, role := range roles {
		procs[i] = startOnFreePort(t, role, db.env())
	}
	for _, p := range procs {
		p.waitHTTP(t, "/health/live", http.StatusOK)
	}
	for _, p := range procs {
		p.waitHTTP(t, "/health/ready", http.StatusOK)
		code, body := get(t, p.url("/health/ready"))
		require.Equal(t, http.StatusOK, code)
		var report struct {
			Status     string
			Components map[string]struct{ Status string }
		}
		require.NoError(t, json.Unmarshal([]byte(body), &report))
		require.Equal(t, "healthy", report.Status)
		require.Equal(t, "up", report.Components["database"].Status, p.name)
		code, body = get(t, p.url("/"))
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, "QueueBox is running!", body)
		code, body = get(t, p.url("/health/live"))
		require.Equal(t, http.StatusOK, code)
		require.JSONEq(t, `{"status":"healthy","components":{"process":{"status":"up"}}}`, body)
	}
	var applied, versions int
	require.NoError(t, db.connect(t).QueryRow(context.Background(),
		`SELECT count(*), count(DISTINCT version) FROM flyway_schema_history`).Scan(&applied, &versions))
	require.Equal(t, latestMigration(t), applied, "each migration applied once")
	require.Equal(t, latestMigration(t), versions)
	for _, p := range procs {
		require.Equal(t, 0, p.terminate(t, 40*time.Second), p.name)
	}
}

func TestVersionFlag(t *testing.T) {
	t.Parallel()
	for _, role := range []string{"ingest", "relay", "deliver", "capture"} {
		p := start(t, role, nil, "--version")
		require.Equal(t, 0, p.wait(t, 10*time.Second))
		require.True(t, strings.HasPrefix(p.out.String(), "queuebox-"+role+" "), p.out.String())
	}
}

// TestBadConfigurationFailsTheStart checks that a bad value stops the
// start with one line that names the key and its variable, and no secret.
func TestBadConfigurationFailsTheStart(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	cases := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"poll interval", with(db.env(), "QUEUEBOX_OUTBOX_POLLINTERVALMS", "0"),
			[]string{"outbox.pollIntervalMs", "QUEUEBOX_OUTBOX_POLLINTERVALMS"}},
		{"admin without auth", with(db.env(), "QUEUEBOX_ADMIN_ENABLED", "true"),
			[]string{"admin.auth", "QUEUEBOX_ADMIN_"}},
		{"renamed table with migrate", with(db.env(), "QUEUEBOX_DATABASE_OUTBOXTABLENAME", "qb_outbox"),
			[]string{"database.outboxTableName", "QUEUEBOX_DATABASE_OUTBOXTABLENAME"}},
		{"unknown route destination", with(db.env(), "QUEUEBOX_ROUTES_0_TOPICPATTERN", "order.*", "QUEUEBOX_ROUTES_0_DESTINATION", "nowhere"),
			[]string{"routes[0].destination", "QUEUEBOX_ROUTES_0_DESTINATION"}},
		{"file secret on the url", with(db.env(), "QUEUEBOX_DATABASE_URL", "file:/run/secrets/url"),
			[]string{"database.url", "QUEUEBOX_DATABASE_URL"}},
		{"missing user name", map[string]string{"QUEUEBOX_DATABASE_URL": db.JDBC, "QUEUEBOX_DATABASE_PASSWORD": "sup3r-secret"},
			[]string{"database.username", "QUEUEBOX_DATABASE_USERNAME"}},
		{"short signing secret", with(destinationEnv(db.env(), "http://127.0.0.1:9"),
			"QUEUEBOX_DESTINATIONS_WEBHOOK_SIGNING_SECRET", "whsec_c3VwM3Itc2VjcmV0"),
			[]string{"destinations.webhook.signing.secret", "QUEUEBOX_DESTINATIONS_WEBHOOK_SIGNING_SECRET", "24 to 64 bytes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, "deliver", tc.env)
			require.Equal(t, 2, p.wait(t, 30*time.Second))
			out := p.out.String()
			var line string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.HasPrefix(l, "queuebox-deliver: ") {
					line = l
				}
			}
			require.NotEmpty(t, line, "a one-line error on stderr:\n%s", out)
			for _, w := range tc.want {
				require.Contains(t, line, w)
			}
			require.NotContains(t, out, "sup3r-secret")
			require.NotContains(t, out, "c3VwM3Itc2VjcmV0")
		})
	}
}

// TestManagementPortMovesOperationalRoutes: with server.managementPort the
// data port answers 404 on health, metrics and admin, and the management
// port serves them.
func TestManagementPortMovesOperationalRoutes(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	data, mgmt := freePort(t), freePort(t)
	p := start(t, "deliver", with(db.env(), "QUEUEBOX_SERVER_HTTPPORT", itoa(data), "QUEUEBOX_SERVER_MANAGEMENTPORT", itoa(mgmt),
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_INSECURE", "true"))
	p.port = mgmt
	p.waitHTTP(t, "/health/ready", http.StatusOK)
	code, body := get(t, p.url("/metrics"))
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "queuebox_uptime_seconds")
	code, body, _ = post(t, p.url("/admin/replay"), `{}`)
	require.Equal(t, http.StatusBadRequest, code)
	require.JSONEq(t, `{"error":"A replay needs at least one filter."}`, body)

	p.port = data
	code, body = get(t, p.url("/"))
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "QueueBox is running!", body)
	for _, path := range []string{"/health", "/health/live", "/health/ready", "/metrics"} {
		code, _ := get(t, p.url(path))
		require.Equal(t, http.StatusNotFound, code, path)
	}
	code, _, _ = post(t, p.url("/admin/replay"), `{"topic":"x"}`)
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, 0, p.terminate(t, 40*time.Second))
}

func itoa(n int) string { return strconv.Itoa(n) }
