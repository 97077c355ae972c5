package integration

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// customTablesEnv starts from the guide's YAML file and lets the database
// variables point it at the test database: a variable wins over the file.
func customTablesEnv(t *testing.T, db database) map[string]string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "queuebox.yml")
	require.NoError(t, os.WriteFile(file, []byte(blockUnder(t, customTablesPage, "yaml", "Rename tables and columns")), 0o600))
	env := with(db.env(), "QUEUEBOX_CONFIG_FILE", file)
	delete(env, "QUEUEBOX_DATABASE_PASSWORD")
	// The guide writes password: ${DB_PASSWORD}; the placeholder resolves.
	return with(env, "DB_PASSWORD", "sup3r-secret")
}

// TestAuditConfigCustomTablesGuideEndToEnd applies the guide's PostgreSQL
// DDL as written, loads the guide's YAML (database.migrate false, renamed
// tables and columns), and runs a webhook and a direct outbox insert
// through ingest, relay and deliver on those tables: every statement must
// use the mapping, and nothing of the default schema is created.
func TestAuditConfigCustomTablesGuideEndToEnd(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	conn := db.connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, blockUnder(t, customTablesPage, "sql", "Create the tables", "CREATE TABLE qb_outbox"))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, blockUnder(t, customTablesPage, "sql", "Create the tables", "queuebox_replay_jobs"))
	require.NoError(t, err, "the tables with fixed names")
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := with(destinationEnv(customTablesEnv(t, db), rc.URL),
		"QUEUEBOX_SOURCES_HOOKS_TYPE", "http",
		"QUEUEBOX_SOURCES_HOOKS_PATH", "/hooks",
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_HOOKS_TOPIC", "hooks.{{ source }}",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	ingest := startServing(t, "ingest", env)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	code, body, _ := post(t, ingest.url("/inbox/hooks"), `{"id":"g-1"}`)
	require.Equal(t, http.StatusAccepted, code, body)
	code, _, _ = post(t, ingest.url("/inbox/hooks"), `{"id":"g-1"}`)
	require.Equal(t, http.StatusOK, code, "the guide's unique constraint deduplicates")
	_, err = conn.Exec(ctx, `INSERT INTO qb_outbox (topic, key, body) VALUES ('order.created', 'k', '{"direct":true}')`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		var sent int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM qb_outbox WHERE state = 'sent'`).Scan(&sent)
		return err == nil && sent == 2
	}, 30*time.Second, 20*time.Millisecond)
	var state string
	require.NoError(t, conn.QueryRow(ctx, `SELECT state FROM qb_inbox WHERE dedup_key = 'g-1'`).Scan(&state))
	require.Equal(t, "processed", state)
	require.Len(t, rc.Requests(), 2)
	var tables int
	require.NoError(t, conn.QueryRow(ctx,
		`SELECT count(*) FROM information_schema.tables WHERE table_name IN ('outbox', 'inbox', 'flyway_schema_history')`).Scan(&tables))
	require.Zero(t, tables, "migrate false created nothing")
}

// TestAuditConfigGuideAlterStatementsRepairTheStart drops the two columns
// that QueueBox checks from the guide's tables: the start stops and prints
// each statement of the guide's repair block, and that block repairs the
// schema.
func TestAuditConfigGuideAlterStatementsRepairTheStart(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	conn := db.connect(t)
	ctx := context.Background()
	// Dropping the sequence column drops the indexes that name it.
	_, err := conn.Exec(ctx, blockUnder(t, customTablesPage, "sql", "Create the tables", "CREATE TABLE qb_outbox")+`
		ALTER TABLE qb_outbox DROP COLUMN sequence;
		ALTER TABLE qb_inbox DROP COLUMN headers;`)
	require.NoError(t, err)
	env := customTablesEnv(t, db)

	p := start(t, "relay", env)
	require.Equal(t, 1, p.wait(t, 30*time.Second))
	out := p.out.String()
	repair := blockUnder(t, customTablesPage, "sql", "Two columns that QueueBox checks at startup")
	statements := strings.Split(strings.TrimSpace(repair), "\n")
	require.Len(t, statements, 3, repair)
	for _, statement := range statements {
		// The log line is JSON, so its quotes are escaped.
		require.Contains(t, out, strings.ReplaceAll(statement, `"`, `\"`), "the start prints the guide's statement")
	}

	_, err = conn.Exec(ctx, repair)
	require.NoError(t, err)
	startServing(t, "relay", env)
}
