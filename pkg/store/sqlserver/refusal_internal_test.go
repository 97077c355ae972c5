package sqlserver

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/stretchr/testify/require"
)

// loginConnector is a driver whose every connection fails with err, as
// go-mssqldb fails a login; it counts the attempts.
type loginConnector struct {
	err      error
	attempts *atomic.Int32
}

func (c loginConnector) Connect(context.Context) (driver.Conn, error) {
	c.attempts.Add(1)
	return nil, c.err
}

func (c loginConnector) Driver() driver.Driver { return nil }

// TestOpenStopsAtARefusedLogin: a login the server refuses (18456) or a
// database it cannot open (4060) ends the start at the first attempt,
// the server's reason first; any other failure is retried until the
// startup timeout, which the error then names.
func TestOpenStopsAtARefusedLogin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		err      error
		want     string
		attempts int32
	}{
		{"login failed", mssql.Error{Number: errLoginFailed, Message: "login error: Login failed for user 'app'."},
			"mssql: login error: Login failed for user 'app'. (error 18456): database the-display refused the connection; check database.username", 1},
		{"no such database", mssql.Error{Number: errCannotOpenDatabase, Message: `Cannot open database "qb" requested by the login. The login failed.`},
			`mssql: Cannot open database "qb" requested by the login. The login failed. (error 4060): database the-display refused the connection`, 1},
		{"no answer", errors.New("dial tcp 127.0.0.1:1433: connect: connection refused"),
			"database the-display did not answer within 300 ms (database.startupTimeoutMs)", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var attempts atomic.Int32
			pool := sql.OpenDB(loginConnector{err: tc.err, attempts: &attempts})
			t.Cleanup(func() { _ = pool.Close() })
			var log bytes.Buffer
			_, err := OpenDB(context.Background(), pool, Options{DisplayURL: "the-display",
				StartupTimeout: 300 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
			if tc.attempts == 1 {
				require.Equal(t, int32(1), attempts.Load(), "no second attempt")
				require.NotContains(t, log.String(), "retrying")
			} else {
				require.GreaterOrEqual(t, attempts.Load(), tc.attempts)
			}
		})
	}
}
