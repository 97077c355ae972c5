package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stderrLine returns the one-line start failure that a binary prints.
func stderrLine(t *testing.T, p *process) string {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(p.out.String()), "\n") {
		if strings.HasPrefix(l, "queuebox-"+p.name+": ") {
			return l
		}
	}
	t.Fatalf("no one-line error from %s:\n%s", p.name, p.out.String())
	return ""
}

// TestAuditConfigURLPasswordNeverPrinted: a database.url that the start
// refuses names the key and its variable, and no part of the password
// reaches the output, whatever characters the password holds.
func TestAuditConfigURLPasswordNeverPrinted(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	for name, url := range map[string]string{
		"user information in a JDBC URL":  "jdbc:postgresql://app:hunter2@127.0.0.1:5432/" + db.Name,
		"a slash in the password":         "postgres://app:hun/ter2@127.0.0.1:99999/" + db.Name,
		"a question mark in the password": "postgres://app:hun?ter2@127.0.0.1/" + db.Name,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := start(t, "deliver", with(db.env(), "QUEUEBOX_DATABASE_URL", url))
			require.Equal(t, 2, p.wait(t, 30*time.Second))
			line := stderrLine(t, p)
			require.Contains(t, line, "database.url")
			require.Contains(t, line, "QUEUEBOX_DATABASE_URL")
			require.NotContains(t, p.out.String(), "hunter2")
			require.NotContains(t, p.out.String(), "ter2")
		})
	}
}

// TestAuditConfigNamedFileMissingStopsTheStart: QUEUEBOX_CONFIG_FILE names
// a file that does not exist and no other variable is set, so no source
// holds a configuration; the error names the three sources.
func TestAuditConfigNamedFileMissingStopsTheStart(t *testing.T) {
	t.Parallel()
	p := start(t, "deliver", nil)
	require.Equal(t, 2, p.wait(t, 30*time.Second))
	line := stderrLine(t, p)
	require.Contains(t, line, "QUEUEBOX_ configuration variable")
	require.Contains(t, line, "/nonexistent/queuebox.yml")
	require.Contains(t, line, "packaged queuebox.yml")
}

// TestAuditConfigStartsAgainstANewerSchema: a schema that a newer release
// migrated further (a history row this build does not know) does not stop
// the start, as the upgrade guide's compatibility policy requires.
func TestAuditConfigStartsAgainstANewerSchema(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	first := startServing(t, "deliver", db.env())
	require.Equal(t, 0, first.terminate(t, 30*time.Second))
	newer := latestMigration(t) + 1
	script := fmt.Sprintf("V%d__from_a_newer_release.sql", newer)
	_, err := db.connect(t).Exec(context.Background(), `INSERT INTO flyway_schema_history
		(installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
		VALUES ($1, $2, 'from a newer release', 'SQL', $3, 0, 'test', 0, true)`, newer, strconv.Itoa(newer), script)
	require.NoError(t, err)
	second := startServing(t, "deliver", db.env())
	require.Contains(t, second.out.String(), script)
}
