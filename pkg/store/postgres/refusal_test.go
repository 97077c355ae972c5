package postgres_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// TestOpenStopsAtARefusal: a database or a role that the server does
// not know is an answer no retry changes, so Open returns at the first
// attempt, with the server's reason first and what to check, instead of
// retrying until the startup timeout and naming it.
func TestOpenStopsAtARefusal(t *testing.T) {
	t.Parallel()
	base, err := url.Parse(pgtest.LoadEnv(t).PostgresURL)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, user, database, want string
	}{
		{"missing database", base.User.Username(), "qb_no_such_database",
			`database "qb_no_such_database" does not exist (SQLSTATE 3D000): database the-display refused the connection; check the database name in database.url`},
		{"missing role", "qb_no_such_role", "postgres",
			`role "qb_no_such_role" does not exist (SQLSTATE 28000): database the-display refused the connection; check database.username`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := *base
			u.User, u.Path = url.User(tc.user), "/"+tc.database
			var log bytes.Buffer
			_, err := postgres.Open(context.Background(), postgres.Options{
				ConnString: u.String(), DisplayURL: "the-display", PoolSize: 1,
				StartupTimeout: 3 * time.Second, Logger: slog.New(slog.NewTextHandler(&log, nil)),
			})
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), tc.want), "the server's reason first: %s", err)
			require.NotContains(t, err.Error(), "startupTimeoutMs")
			require.NotContains(t, log.String(), "retrying", "no second attempt")
		})
	}
}

// TestOpenNamesTheSettingOfItsWait: a start that runs out of time names
// the setting that bounded it, database.startupTimeoutMs unless the
// caller (a command line flag) names another.
func TestOpenNamesTheSettingOfItsWait(t *testing.T) {
	t.Parallel()
	for setting, want := range map[string]string{"": "(database.startupTimeoutMs)", "--wait": "(--wait)"} {
		_, err := postgres.Open(context.Background(), postgres.Options{
			// Port 1 on the loopback answers nothing: a refused TCP
			// connection is no answer of a database, so it is retried.
			ConnString: "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=1", DisplayURL: "the-display",
			PoolSize: 1, StartupSetting: setting, Logger: pgtest.Quiet(),
		})
		require.Error(t, err)
		require.Contains(t, err.Error(), "database the-display did not answer within 0 ms "+want)
	}
}
