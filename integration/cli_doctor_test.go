package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cli runs `queuebox args...` once with exactly env (plus PATH and HOME,
// and no configuration file) and returns its exit code, stdout and
// stderr apart, so a test can parse the JSON on stdout.
func cli(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t, "queuebox"), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "QUEUEBOX_CONFIG_FILE=/nonexistent/queuebox.yml"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	require.NoError(t, err)
	return 0, stdout.String(), stderr.String()
}

// doctorReport is the JSON output of queuebox doctor.
type doctorReport struct {
	Status   string `json:"status"`
	ExitCode int    `json:"exitCode"`
	Replicas int    `json:"replicas"`
	Checks   []struct {
		Name, Status, Detail, Fix string
	} `json:"checks"`
}

// check returns the status and detail of the first check called name.
func (r doctorReport) check(name string) (string, string) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c.Status, c.Detail
		}
	}
	return "absent", ""
}

// doctor runs queuebox doctor --output json and checks that the exit code
// agrees with the report.
func doctor(t *testing.T, env map[string]string, args ...string) doctorReport {
	t.Helper()
	code, stdout, stderr := cli(t, env, append([]string{"doctor", "--output", "json"}, args...)...)
	var r doctorReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &r), "stdout: %s\nstderr: %s", stdout, stderr)
	require.Equal(t, r.ExitCode, code, stdout)
	return r
}

// eventually runs doctor until want holds for the report, within a
// generous deadline: the statistics views lag the writes.
func eventually(t *testing.T, env map[string]string, args []string, want func(doctorReport) bool) doctorReport {
	t.Helper()
	var r doctorReport
	require.Eventually(t, func() bool { r = doctor(t, env, args...); return want(r) }, 90*time.Second, 500*time.Millisecond)
	return r
}

// TestDoctorProvokesEachProblem walks one database of its own from empty
// to migrated, then breaks it one way at a time and reads each verdict
// from queuebox doctor: pending and mismatched migrations, a dropped V12
// index, a missing replication slot, old pending rows, dead rows, dead
// tuples behind a transaction held open by the test, and a pool too
// large for max_connections. Nothing of the shared server is changed.
func TestDoctorProvokesEachProblem(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(db.env(), "QUEUEBOX_DATABASE_MIGRATE", "false")

	// An empty database: every version pending, and with
	// database.migrate false that fails.
	code, stdout, _ := cli(t, env, "migrate", "status")
	require.Equal(t, 1, code, stdout)
	require.Regexp(t, `V12\s+pending\s+V12__add_relay_claim_indexes.sql`, stdout)
	r := doctor(t, env)
	require.Equal(t, 2, r.ExitCode)
	status, detail := r.check("migrations")
	require.Equal(t, "fail", status)
	require.Contains(t, detail, "pending: V1, V2")

	code, stdout, stderr := cli(t, env, "migrate")
	require.Equal(t, 0, code, stdout+stderr)
	code, stdout, _ = cli(t, env, "migrate", "status", "--output", "json")
	require.Equal(t, 0, code, stdout)
	require.Contains(t, stdout, `"state": "applied"`)
	require.NotContains(t, stdout, `"state": "pending"`)

	// The healthy baseline. The server's autovacuum setting is not ours
	// to change, so the vacuum verdict follows it.
	autovacuum := psqlRows(t, db, `SELECT current_setting('autovacuum')`)[0][0] == "on"
	r = doctor(t, env)
	for _, name := range []string{"database", "migrations", "indexes", "pending destination", "pending source",
		"dead destination", "dead source", "open transactions", "connections"} {
		status, detail := r.check(name)
		require.Equal(t, "ok", status, "%s: %s", name, detail)
	}
	status, _ = r.check("capture")
	require.Equal(t, "skip", status)
	vacuum := map[bool]string{true: "ok", false: "warn"}[autovacuum]
	status, detail = r.check(`vacuum "outbox"`)
	require.Equal(t, vacuum, status, detail)
	_, detail = r.check("connections")
	require.Contains(t, detail, "5 × 1 replica (--replicas)")

	t.Run("rows", func(t *testing.T) { doctorRows(t, db, env) })
	t.Run("schema", func(t *testing.T) { doctorSchema(t, db, env) })
	t.Run("server", func(t *testing.T) { doctorServer(t, db, env) })
}

// doctorRows: an hour-old pending row per table, dead rows per
// destination (its route's, summed over the topics, or the one a row was
// routed to: a fan-out's delivery to audit, whatever the route names)
// and per source.
func doctorRows(t *testing.T, db database, env map[string]string) {
	psqlExec(t, db, `
INSERT INTO outbox (id, topic, payload, state, created_at) VALUES
  (gen_random_uuid(), 'order.created', '{}', 'pending', now() - interval '1 hour'),
  (gen_random_uuid(), 'order.failed', '{}', 'dead', now() - interval '2 hours'),
  (gen_random_uuid(), 'order.failed', '{}', 'dead', now());
INSERT INTO outbox (id, topic, payload, state, destination, created_at) VALUES
  (gen_random_uuid(), 'order.failed', '{}', 'dead', 'audit', now() - interval '3 hours');
INSERT INTO inbox (id, source, idempotency_key, payload, state, created_at) VALUES
  (gen_random_uuid(), 'stripe', 'k1', '{}', 'pending', now() - interval '1 hour'),
  (gen_random_uuid(), 'stripe', 'k2', '{}', 'dead', now());`)
	routed := with(env,
		"QUEUEBOX_DESTINATIONS_BILLING_TYPE", "http",
		"QUEUEBOX_DESTINATIONS_BILLING_BASEURL", "http://127.0.0.1:9",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "order.*",
		"QUEUEBOX_ROUTES_0_DESTINATION", "billing")
	r := doctor(t, routed)
	require.Equal(t, 1, r.ExitCode)
	for name, want := range map[string]string{
		"pending destination billing": "1 row pending, the oldest for 1h0",
		"pending source stripe":       "1 row pending",
		"dead destination billing":    "2 rows dead, the oldest created 2h0",
		"dead destination audit":      "1 row dead, the oldest created 3h0",
		"dead source stripe":          "1 row dead",
	} {
		status, detail := r.check(name)
		require.Equal(t, "warn", status, name)
		require.Contains(t, detail, want, name)
	}
	// Under a generous threshold the old pending rows are fine.
	r = doctor(t, routed, "--pending-age", "2h")
	status, _ := r.check("pending destination billing")
	require.Equal(t, "ok", status)
	psqlExec(t, db, `DELETE FROM outbox; DELETE FROM inbox;`)
}

// doctorSchema: a dropped V12 index, forgotten migrations (V12 and every
// later one, so the history stays in order) and an edited one.
func doctorSchema(t *testing.T, db database, env map[string]string) {
	var forgotten []string
	for v := 12; v <= latestMigration(t); v++ {
		forgotten = append(forgotten, fmt.Sprintf("V%d", v))
	}
	psqlExec(t, db, `DROP INDEX idx_inbox_push_heads;
DELETE FROM flyway_schema_history WHERE version::int >= 12;
UPDATE flyway_schema_history SET checksum = checksum + 1 WHERE version = '11';`)
	code, stdout, _ := cli(t, env, "migrate", "status")
	require.Equal(t, 1, code, stdout)
	require.Regexp(t, `V11\s+mismatch`, stdout)
	require.Regexp(t, `V12\s+pending`, stdout)

	r := doctor(t, with(env, "QUEUEBOX_DATABASE_MIGRATE", "true"))
	require.Equal(t, 1, r.ExitCode)
	var migrations []string
	for _, c := range r.Checks {
		if c.Name == "migrations" {
			migrations = append(migrations, c.Status+": "+c.Detail)
		}
	}
	require.Equal(t, []string{"warn: pending: " + strings.Join(forgotten, ", "),
		"warn: applied with another checksum than the bundled file: V11"}, migrations)
	status, detail := r.check("indexes")
	require.Equal(t, "warn", status)
	require.Contains(t, detail, `no index on ("aggregate_id", "state", "created_at")`)

	// Repair: V11 as it was; migrate applies V12 (the index) and the later ones again.
	psqlExec(t, db, `UPDATE flyway_schema_history SET checksum = checksum - 1 WHERE version = '11';`)
	code, stdout, stderr := cli(t, env, "migrate")
	require.Equal(t, 0, code, stdout+stderr)
	status, _ = doctor(t, env).check("indexes")
	require.Equal(t, "ok", status)
}

// doctorServer: a missing slot with capture on, dead tuples that a
// transaction held open by the test keeps, that transaction itself, a
// pool too large for the server, and no database at all.
func doctorServer(t *testing.T, db database, env map[string]string) {
	captured := with(env, "QUEUEBOX_OUTBOX_CAPTURE_MODE", "postgres-logical",
		"QUEUEBOX_OUTBOX_CAPTURE_SLOT", db.Name+"_slot", "QUEUEBOX_OUTBOX_CAPTURE_PUBLICATION", db.Name+"_pub")
	r := doctor(t, captured)
	status, detail := r.check("slot")
	require.Equal(t, "warn", status, detail)
	require.Contains(t, detail, "does not exist")

	held := db.connect(t)
	tx, err := held.Begin(context.Background())
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(context.Background()) }()
	_, err = tx.Exec(context.Background(), `SELECT txid_current()`)
	require.NoError(t, err)
	psqlExec(t, db, `INSERT INTO outbox (id, topic, payload, state)
  SELECT gen_random_uuid(), 'bulk', '{}', 'sent' FROM generate_series(1, 2000);
DELETE FROM outbox WHERE topic = 'bulk';`)
	args := []string{"--transaction-age", "1s", "--dead-tuples", "1000"}
	r = eventually(t, env, args, func(r doctorReport) bool {
		tx, _ := r.check("open transactions")
		vacuum, _ := r.check(`vacuum "outbox"`)
		return tx == "warn" && vacuum == "warn"
	})
	_, detail = r.check("open transactions")
	require.Contains(t, detail, "SELECT txid_current()")
	_, detail = r.check(`vacuum "outbox"`)
	require.Regexp(t, `\b20\d\d dead`, detail)
	require.NoError(t, tx.Rollback(context.Background()))

	code, stdout, _ := cli(t, with(env, "QUEUEBOX_DATABASE_POOLSIZE", "100"), "doctor", "--replicas", "1000")
	require.Equal(t, 2, code, stdout)
	require.Regexp(t, `fail\s+connections\s+database.poolSize 100 × 1000 replicas \(--replicas\) = 100000 of`, stdout)
	require.Contains(t, stdout, "fix: lower database.poolSize")

	code, stdout, _ = cli(t, with(env, "QUEUEBOX_DATABASE_URL", db.JDBC+"_absent"), "doctor", "--wait", "1s")
	require.Equal(t, 2, code, stdout)
	require.Regexp(t, `fail\s+database\s+database "`+db.Name+`_absent" does not exist \(SQLSTATE 3D000\)`, stdout)
}
