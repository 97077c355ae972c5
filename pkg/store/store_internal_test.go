package store

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The capture wiring finds the connector's database by asking the store
// set for capture.Database; a PostgreSQL set that lost the method would
// report capture as unsupported instead of failing to build.
var _ capture.Database = (*postgres.Stores)(nil)

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
