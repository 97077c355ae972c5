package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMigrateCreatesTheSchemaOnceAndNamesAProblem: queuebox migrate on a
// fresh database creates the tables even with database.migrate false (the
// setting of the replicas a migrate Job serves) and exits 0; a second run
// applies nothing; a database it cannot reach exits 1 and is named.
func TestMigrateCreatesTheSchemaOnceAndNamesAProblem(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(db.env(), "QUEUEBOX_DATABASE_MIGRATE", "false")
	history := func() [][]string {
		return psqlRows(t, db, `SELECT count(*), max(installed_rank) FROM flyway_schema_history`)
	}

	// Log lines only, one format (JSON by default), on stderr.
	code, stdout, stderr := cli(t, env, "migrate")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	var last map[string]any
	for l := range strings.Lines(stderr) {
		last = nil
		require.NoError(t, json.Unmarshal([]byte(l), &last), l)
		require.Equal(t, "queuebox migrate", last["service"])
	}
	require.Equal(t, "schema up to date", last["msg"])
	require.Equal(t, [][]string{{"outbox", "inbox"}},
		psqlRows(t, db, `SELECT to_regclass('outbox')::text, to_regclass('inbox')::text`))
	first := history()
	require.NotEqual(t, "0", first[0][0], "the migrations are recorded")

	p := start(t, "queuebox", env, "migrate")
	require.Equal(t, 0, p.wait(t, 120*time.Second), p.out.String())
	require.Equal(t, first, history(), "a second run applies nothing")

	missing := with(env, "QUEUEBOX_DATABASE_URL", db.JDBC+"_absent", "QUEUEBOX_DATABASE_STARTUPTIMEOUTMS", "1000")
	p = start(t, "queuebox", missing, "migrate")
	require.Equal(t, 1, p.wait(t, 120*time.Second), p.out.String())
	require.Contains(t, p.out.String(), db.Name+"_absent")
}
