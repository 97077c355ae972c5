package store

import (
	"log/slog"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	cappg "github.com/alternayte/queuebox/pkg/capture/postgres"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The capture wiring finds the connector's database by asking the store
// set for cappg.Database; a PostgreSQL set that lost the method would
// report capture as unsupported instead of failing to build.
var _ cappg.Database = (*postgres.Stores)(nil)

func TestPostgresOptionsMapTheDatabaseBlock(t *testing.T) {
	t.Parallel()
	cfg := config.Default().Database
	cfg.URL = "jdbc:postgresql://db.internal:5433/queuebox?password=url-pass"
	cfg.Username, cfg.Password = "app", secret.New("app-pass")
	cfg.PoolSize, cfg.ConnectionTimeoutMs, cfg.StartupTimeoutMs, cfg.Migrate = 7, 1500, 2500, false
	cfg.OutboxTableName = "events_out"
	opts, err := postgresOptions(cfg, Options{PoolName: "capture"})
	require.NoError(t, err)
	c, err := pgconn.ParseConfig(opts.ConnString)
	require.NoError(t, err)
	require.Equal(t, []any{"db.internal", uint16(5433), "queuebox", "app", "app-pass"},
		[]any{c.Host, c.Port, c.Database, c.User, c.Password})
	require.NotContains(t, opts.DisplayURL, "url-pass")
	require.Equal(t, []any{7, 1500 * time.Millisecond, 2500 * time.Millisecond, "capture", false},
		[]any{opts.PoolSize, opts.AcquireTimeout, opts.StartupTimeout, opts.PoolName, opts.Migrate})
	require.Equal(t, `"events_out"`, opts.Layout.O.Table)
}

func TestPostgresOptionsRefuseABadURL(t *testing.T) {
	t.Parallel()
	cfg := config.Default().Database
	cfg.URL = "mysql://db.internal/queuebox"
	_, err := postgresOptions(cfg, Options{})
	require.ErrorContains(t, err, "database.url (QUEUEBOX_DATABASE_URL)")
}

func TestSQLServerOptionsMapTheDatabaseBlock(t *testing.T) {
	t.Parallel()
	cfg := config.Default().Database
	cfg.Type = config.DatabaseSQLServer
	cfg.URL = "jdbc:sqlserver://db.internal:1444;databaseName=queuebox;encrypt=true;trustServerCertificate=true"
	cfg.Username, cfg.Password = "app", secret.New("app-pass")
	cfg.PoolSize, cfg.ConnectionTimeoutMs, cfg.StartupTimeoutMs, cfg.Migrate = 7, 1500, 2500, false
	cfg.OutboxTableName = "events_out"
	opts, err := sqlServerOptions(cfg, Options{})
	require.NoError(t, err)
	u, err := url.Parse(opts.ConnString)
	require.NoError(t, err)
	pass, _ := u.User.Password()
	require.Equal(t, []any{"sqlserver", "db.internal:1444", "app", "app-pass"}, []any{u.Scheme, u.Host, u.User.Username(), pass})
	require.Equal(t, url.Values{"database": {"queuebox"}, "encrypt": {"true"}, "TrustServerCertificate": {"true"}}, u.Query(),
		"encrypt and trustServerCertificate reach the driver")
	require.NotContains(t, opts.DisplayURL, "app-pass")
	require.Equal(t, []any{7, 1500 * time.Millisecond, 2500 * time.Millisecond, false},
		[]any{opts.PoolSize, opts.AcquireTimeout, opts.StartupTimeout, opts.Migrate})
	require.Equal(t, "[events_out]", opts.Layout.O.Table)
	require.Equal(t, "[key]", opts.Layout.O.Key)
}

// TestSQLServerStartAgainstAClosedPortNamesHostAndPort starts a store set
// for real against a loopback port that nothing listens on: the start
// gives up after database.startupTimeoutMs with the host and the port in
// its message.
func TestSQLServerStartAgainstAClosedPortNamesHostAndPort(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	cfg := config.Default().Database
	cfg.Type = config.DatabaseSQLServer
	cfg.URL = "jdbc:sqlserver://" + addr + ";databaseName=queuebox;encrypt=false"
	cfg.Username, cfg.Password = "sa", secret.New("never-shown")
	cfg.StartupTimeoutMs = 300
	stores, err := Open(t.Context(), cfg, Options{Logger: slog.New(slog.DiscardHandler)})
	require.Error(t, err)
	require.Nil(t, stores)
	require.ErrorContains(t, err, addr)
	require.ErrorContains(t, err, "database.startupTimeoutMs")
	require.NotContains(t, err.Error(), "never-shown")
}
