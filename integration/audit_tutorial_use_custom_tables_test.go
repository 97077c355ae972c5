package integration

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// customTablesPage is the how-to of docs/ for tables of your own.
const customTablesPage = "tutorials/custom-tables.md"

// TestAuditTutorialCustomTablesRefuseMigrate: the page's renaming
// configuration with database.migrate still true stops the start, and the
// one error line names every renamed setting.
func TestAuditTutorialCustomTablesRefuseMigrate(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := customTablesEnv(t, db)
	yaml := strings.Replace(blockUnder(t, customTablesPage, "yaml", "Rename tables and columns"), "migrate: false", "migrate: true", 1)
	require.NoError(t, os.WriteFile(env["QUEUEBOX_CONFIG_FILE"], []byte(yaml), 0o600))
	p := start(t, "deliver", env)
	require.Equal(t, 2, p.wait(t, 30*time.Second))
	line := stderrLine(t, p)
	for _, key := range []string{"database.outboxTableName", "database.inboxTableName",
		"database.columnMapping.outbox.payload", "database.columnMapping.inbox.idempotencyKey"} {
		require.Contains(t, line, key+" (")
	}
	require.Equal(t, [][]string{{"0"}}, psqlRows(t, db,
		`SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'`), "nothing was created")
}

// pageVersions returns the versions that the page's PostgreSQL loop
// applies, and requires them to be every file of migrations/postgres, in
// order: a new migration without its number in the loop fails here.
func pageVersions(t *testing.T) []int {
	t.Helper()
	block := blockUnder(t, customTablesPage, "bash", "Apply the default schema by hand", "migrations/postgres/V${version}__*.sql")
	m := regexp.MustCompile(`for version in ([0-9 ]+); do`).FindStringSubmatch(block)
	require.NotNil(t, m, block)
	var versions []int
	for _, f := range strings.Fields(m[1]) {
		v, err := strconv.Atoi(f)
		require.NoError(t, err)
		versions = append(versions, v)
	}
	files, err := filepath.Glob(filepath.Join("..", "migrations", "postgres", "V*__*.sql"))
	require.NoError(t, err)
	want := make([]int, len(files))
	for i := range want {
		want[i] = i + 1
	}
	require.Equal(t, want, versions, "the loop names every migration file in version order")
	return versions
}

// applyMigrations runs the bundled PostgreSQL files that the page's loop
// names, in its order, as its psql does, skipping the versions in skip.
func applyMigrations(t *testing.T, db database, skip ...int) {
	t.Helper()
	for _, version := range pageVersions(t) {
		if slices.Contains(skip, version) {
			continue
		}
		files, err := filepath.Glob(filepath.Join("..", "migrations", "postgres", "V"+itoa(version)+"__*.sql"))
		require.NoError(t, err)
		require.Len(t, files, 1, "V%d", version)
		script, err := os.ReadFile(files[0])
		require.NoError(t, err)
		psqlExec(t, db, string(script))
	}
}

// byHandEnv loads the page's migrate: false configuration; the database
// variables point it at the test database.
func byHandEnv(t *testing.T, db database) map[string]string {
	t.Helper()
	yaml := blockUnder(t, customTablesPage, "yaml", "Apply the default schema by hand", "migrate: false")
	env := with(tutorialConfig(t, db, yaml), "DB_PASSWORD", "sup3r-secret")
	delete(env, "QUEUEBOX_DATABASE_PASSWORD")
	return env
}

// TestAuditTutorialCustomTablesByHand applies every file by hand, as the
// page's loop does, and runs the binaries with migrations off: they start, write and deliver on
// that schema, and create no migration history.
func TestAuditTutorialCustomTablesByHand(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	applyMigrations(t, db)
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := with(destinationEnv(byHandEnv(t, db), rc.URL),
		"QUEUEBOX_SOURCES_HOOKS_TYPE", "http", "QUEUEBOX_SOURCES_HOOKS_PATH", "/hooks",
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH", "$.id", "QUEUEBOX_SOURCES_HOOKS_TOPIC", "hooks.in",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	ingest := startServing(t, "ingest", env)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)
	code, body, _ := post(t, ingest.url("/inbox/hooks"), `{"id":"h-1"}`)
	require.Equal(t, http.StatusAccepted, code, body)
	psqlExec(t, db, `INSERT INTO outbox (topic, key, payload, aggregate_type) VALUES ('order.created', 'k', '{}', 'order')`)
	require.Eventually(t, func() bool {
		return psqlRows(t, db, `SELECT count(*) FROM outbox WHERE state = 'sent'`)[0][0] == "2"
	}, 30*time.Second, 20*time.Millisecond)
	require.Equal(t, [][]string{{"0"}}, psqlRows(t, db,
		`SELECT count(*) FROM information_schema.tables WHERE table_name = 'flyway_schema_history'`))
}

// TestAuditTutorialCustomTablesMissingFile: a file left out does not stop
// the start; the first statement that names its column fails instead.
func TestAuditTutorialCustomTablesMissingFile(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	applyMigrations(t, db, 9) // V9 adds aggregate_type to the outbox
	startServing(t, "deliver", byHandEnv(t, db))
	_, err := db.connect(t).Exec(context.Background(),
		`INSERT INTO outbox (topic, payload, aggregate_type) VALUES ('order.created', '{}', 'order')`)
	require.ErrorContains(t, err, "aggregate_type")
}
