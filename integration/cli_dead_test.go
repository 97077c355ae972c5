package integration

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// deadPage is the JSON output of queuebox dead list.
type deadPage struct {
	Items []struct {
		ID, State, Topic, Destination, Source string
		Discarded                             bool
	} `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

func deadList(t *testing.T, env map[string]string, args ...string) deadPage {
	t.Helper()
	code, stdout, stderr := cli(t, env, append([]string{"dead", "list", "--output", "json"}, args...)...)
	require.Equal(t, 0, code, stdout+stderr)
	var p deadPage
	require.NoError(t, json.Unmarshal([]byte(stdout), &p), stdout)
	return p
}

// TestDeadAndReplayThroughTheBinary drives the dead and replay commands
// of the built binary against a database of its own: list with filters
// and pages, show, resend with a corrected payload, discard, a replay by
// topic glob with its dry run, a replay of more rows than one batch, the
// inbox, and the errors that name what was wrong.
func TestDeadAndReplayThroughTheBinary(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(db.env(),
		"QUEUEBOX_DESTINATIONS_BILLING_TYPE", "http",
		"QUEUEBOX_DESTINATIONS_BILLING_BASEURL", "http://127.0.0.1:9",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "order.*",
		"QUEUEBOX_ROUTES_0_DESTINATION", "billing")
	code, stdout, stderr := cli(t, env, "migrate")
	require.Equal(t, 0, code, stdout+stderr)
	psqlExec(t, db, `
INSERT INTO outbox (id, topic, payload, state, last_error) VALUES
  ('00000000-0000-4000-8000-000000000001', 'order.created', '{"n":1}', 'dead', 'HTTP 500'),
  ('00000000-0000-4000-8000-000000000002', 'order.created', '{"n":2}', 'dead', 'HTTP 500'),
  ('00000000-0000-4000-8000-000000000003', 'order.paid', '{"n":3}', 'dead', 'timeout'),
  ('00000000-0000-4000-8000-000000000004', 'order.paid', '{"n":4}', 'sent', NULL),
  ('00000000-0000-4000-8000-000000000005', 'user.created', '{"n":5}', 'dead', 'no route'),
  ('00000000-0000-4000-8000-000000000006', 'order.paid', '{"n":6}', 'pending', NULL);
INSERT INTO inbox (id, source, idempotency_key, payload, state, last_error) VALUES
  ('00000000-0000-4000-8000-000000000011', 'stripe', 'k1', '{}', 'dead', 'not JSON');`)

	// Lists: dead rows by default, with the destination of each, in pages.
	p := deadList(t, env)
	require.Len(t, p.Items, 4)
	require.Nil(t, p.NextCursor)
	first := deadList(t, env, "--limit", "3")
	require.Len(t, first.Items, 3)
	require.NotNil(t, first.NextCursor)
	second := deadList(t, env, "--limit", "3", "--cursor", *first.NextCursor)
	require.Len(t, second.Items, 1)
	seen := map[string]bool{}
	for _, it := range append(first.Items, second.Items...) {
		require.False(t, seen[it.ID], "no row twice across pages")
		seen[it.ID] = true
	}
	require.Len(t, seen, 4)
	billing := deadList(t, env, "--destination", "billing")
	require.Len(t, billing.Items, 3)
	for _, it := range billing.Items {
		require.Equal(t, "billing", it.Destination)
	}
	require.Len(t, deadList(t, env, "--topic", "order.c*").Items, 2)
	require.Len(t, deadList(t, env, "--destination", "nobody").Items, 0)
	require.Len(t, deadList(t, env, "--error", "TIMEOUT").Items, 1)
	require.Len(t, deadList(t, env, "--state", "sent", "--state", "pending").Items, 2)

	code, stdout, _ = cli(t, env, "dead", "show", "00000000-0000-4000-8000-000000000001", "--output", "json")
	require.Equal(t, 0, code, stdout)
	require.Contains(t, stdout, `"n": 1`)
	require.Contains(t, stdout, `"destination": "billing"`)

	// Resend with a corrected payload; a second resend finds it pending.
	code, stdout, stderr = cli(t, env, "dead", "resend", "00000000-0000-4000-8000-000000000001", "--payload", `{"n":10}`)
	require.Equal(t, 0, code, stdout+stderr)
	require.Equal(t, [][]string{{"pending", "10", "0"}},
		psqlRows(t, db, `SELECT state, payload->>'n', attempt FROM outbox WHERE id = '00000000-0000-4000-8000-000000000001'`))
	// Each write leaves one audit line on stderr, with digests and never the payload.
	line := auditLine(t, stderr)
	require.Equal(t, "dead resend", line["command"])
	require.Equal(t, []any{"00000000-0000-4000-8000-000000000001"}, line["ids"])
	require.Equal(t, true, line["edited"])
	require.Len(t, line["new_payload_sha256"], 64)
	require.NotEmpty(t, line["user"])
	require.NotContains(t, stderr, `"n":10`)
	code, _, stderr = cli(t, env, "dead", "resend", "00000000-0000-4000-8000-000000000001")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "is pending: resend moves sent, dead rows only")

	// Discard hides the row from lists, --discarded shows it.
	code, stdout, stderr = cli(t, env, "dead", "discard", "00000000-0000-4000-8000-000000000005")
	require.Equal(t, 0, code, stdout+stderr)
	require.Equal(t, "dead discard", auditLine(t, stderr)["command"])
	require.Len(t, deadList(t, env).Items, 2)
	require.Len(t, deadList(t, env, "--discarded").Items, 3)

	// Replay by glob: the dead and sent order.* rows, not the pending one.
	code, stdout, _ = cli(t, env, "replay", "--topic", "order.*", "--dry-run", "--output", "json")
	require.Equal(t, 0, code, stdout)
	require.Contains(t, stdout, `"matched": 3`)
	require.Equal(t, [][]string{{"3"}}, psqlRows(t, db, `SELECT count(*) FROM outbox WHERE state = 'dead'`), "a dry run moves nothing")
	code, stdout, stderr = cli(t, env, "replay", "--topic", "order.*", "--output", "json")
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, `"moved": 3`)
	require.Equal(t, map[string]any{"command": "replay", "count": float64(3)},
		map[string]any{"command": auditLine(t, stderr)["command"], "count": auditLine(t, stderr)["count"]})
	// The filter under the admin API's keys, never the Go field names.
	require.Equal(t, map[string]any{"states": []any{"sent", "dead"}, "topic": "order.*"}, auditLine(t, stderr)["filter"])
	require.Equal(t, [][]string{{"dead", "1"}, {"pending", "5"}},
		psqlRows(t, db, `SELECT state, count(*) FROM outbox GROUP BY state ORDER BY state`))

	// A replay larger than one batch runs as a job, in batches; without a
	// terminal no progress bar is drawn.
	psqlExec(t, db, `INSERT INTO outbox (id, topic, payload, state)
  SELECT gen_random_uuid(), 'bulk.' || (i % 3), '{}', 'dead' FROM generate_series(1, 1200) AS i;`)
	code, stdout, stderr = cli(t, env, "replay", "--topic", "bulk.*", "--batch", "500")
	require.Equal(t, 0, code, stdout+stderr)
	require.Regexp(t, `replay job [0-9a-f-]{36}: moved 1200 of 1200 matched outbox rows to pending`, stdout)
	require.NotContains(t, stderr, "replay [")
	require.Equal(t, [][]string{{"1200", "1200", "t"}},
		psqlRows(t, db, `SELECT matched, moved, done FROM queuebox_replay_jobs ORDER BY created_at DESC LIMIT 1`))

	// The inbox: list by source, resend the dead row.
	in := deadList(t, env, "--table", "inbox", "--source", "stripe")
	require.Len(t, in.Items, 1)
	require.Equal(t, "stripe", in.Items[0].Source)
	code, stdout, stderr = cli(t, env, "dead", "resend", "--table", "inbox", "00000000-0000-4000-8000-000000000011")
	require.Equal(t, 0, code, stdout+stderr)
	require.Equal(t, [][]string{{"pending"}}, psqlRows(t, db, `SELECT state FROM inbox`))

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"dead", "list", "--colour", "red"}, 2, "flag provided but not defined: -colour"},
		{[]string{"dead", "show", "42"}, 2, `bad id "42"`},
		{[]string{"dead", "show", "00000000-0000-4000-8000-0000000000ff"}, 1, "no outbox row has id 00000000-0000-4000-8000-0000000000ff"},
		// An inbox id without --table inbox, or the other way round.
		{[]string{"dead", "show", "00000000-0000-4000-8000-000000000011"}, 1,
			"no outbox row has id 00000000-0000-4000-8000-000000000011, but an inbox row has: add --table inbox"},
		{[]string{"dead", "discard", "00000000-0000-4000-8000-000000000011"}, 1, "but an inbox row has: add --table inbox"},
		{[]string{"dead", "show", "--table", "inbox", "00000000-0000-4000-8000-000000000002"}, 1,
			"no inbox row has id 00000000-0000-4000-8000-000000000002, but an outbox row has: add --table outbox"},
		{[]string{"replay", "--created-after", "yesterday"}, 2, `--created-after "yesterday"`},
	} {
		code, _, stderr := cli(t, env, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.want, "%v", tc.args)
	}
	code, _, stderr = cli(t, with(env, "QUEUEBOX_DATABASE_URL", db.JDBC+"_absent"), "dead", "list", "--wait", "1s")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, fmt.Sprintf(`queuebox dead list: database "%s_absent" does not exist (SQLSTATE 3D000): database %s_absent refused`, db.Name, db.JDBC))
}

// auditLine finds the one "cli write" line of a command's stderr.
func auditLine(t *testing.T, stderr string) map[string]any {
	t.Helper()
	var found []map[string]any
	for l := range strings.Lines(stderr) {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "cli write" {
			found = append(found, m)
		}
	}
	require.Len(t, found, 1, "one audit line in %q", stderr)
	return found[0]
}
