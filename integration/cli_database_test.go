package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRefusedDatabaseStopsEveryCommandAtOnce: a database the server does
// not have (SQLSTATE 3D000) or a role it does not know (28000) is an
// answer no wait changes. Every command that connects, and queuebox run,
// stops at the first attempt with the server's reason first, although
// --wait and database.startupTimeoutMs allow ten minutes; none of them
// blames a timeout.
func TestRefusedDatabaseStopsEveryCommandAtOnce(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	absent := with(db.env(), "QUEUEBOX_DATABASE_URL", db.JDBC+"_absent", "QUEUEBOX_DATABASE_STARTUPTIMEOUTMS", "600000")
	reason := fmt.Sprintf(`database "%s_absent" does not exist (SQLSTATE 3D000): database %s_absent refused the connection`, db.Name, db.JDBC)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"dead", "list", "--wait", "10m"}, 1},
		{[]string{"dead", "show", "00000000-0000-4000-8000-000000000001", "--wait", "10m"}, 1},
		{[]string{"replay", "--topic", "order.*", "--wait", "10m"}, 1},
		{[]string{"migrate", "status", "--wait", "10m"}, 1},
		{[]string{"doctor", "--wait", "10m"}, 2},
	} {
		code, stdout, stderr := cli(t, absent, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s%s", tc.args, stdout, stderr)
		require.Contains(t, stdout+stderr, reason, "%v", tc.args)
		require.NotContains(t, stdout+stderr, "did not answer", "%v", tc.args)
	}
	// migrate says it in its log line (text here, to read it as written).
	code, _, stderr := cli(t, with(absent, "QUEUEBOX_LOG_FORMAT", "text"), "migrate")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, `msg="migrate failed"`)
	require.Contains(t, stderr, strings.ReplaceAll(reason, `"`, `\"`))
	require.NotContains(t, stderr, "database not ready, retrying")

	code, _, stderr = cli(t, with(db.env(), "QUEUEBOX_DATABASE_USERNAME", "qb_no_such_role"), "dead", "list", "--wait", "10m")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, `queuebox dead list: role "qb_no_such_role" does not exist (SQLSTATE 28000)`)
	require.Contains(t, stderr, "check database.username (QUEUEBOX_DATABASE_USERNAME)")

	p := startOnFreePort(t, "queuebox", absent)
	require.Equal(t, 1, p.wait(t, 60*time.Second), p.out.String())
	var line string
	for l := range strings.Lines(p.out.String()) {
		if strings.HasPrefix(l, "queuebox: ") {
			line = l
		}
	}
	require.True(t, strings.HasPrefix(line, "queuebox: "+reason), "the server's reason first: %q", p.out.String())
	require.NotContains(t, p.out.String(), "database not ready, retrying")
}

// TestNoPasswordWhenTheServerAsksNone: the local server trusts its
// clients, so the URL and the user name are enough for a command, and
// for a role, without even an empty QUEUEBOX_DATABASE_PASSWORD.
func TestNoPasswordWhenTheServerAsksNone(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := map[string]string{"QUEUEBOX_DATABASE_URL": db.JDBC, "QUEUEBOX_DATABASE_USERNAME": "postgres", "QUEUEBOX_DATABASE_POOLSIZE": "5"}
	code, stdout, stderr := cli(t, env, "migrate")
	require.Equal(t, 0, code, stdout+stderr)
	code, stdout, stderr = cli(t, env, "dead", "list")
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, "no rows match")
	startServing(t, "queuebox", env)
}
