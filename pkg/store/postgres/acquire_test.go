package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// TestAcquireTimeout: a pool with no free connection fails a statement
// with ErrAcquireTimeout once database.connectionTimeoutMs passes, and a
// caller's own deadline is reported as the caller's, not as the pool's.
func TestAcquireTimeout(t *testing.T) {
	t.Parallel()
	s := pgtest.NewSchema(t)
	db, err := postgres.Open(context.Background(), postgres.Options{
		ConnString: s.URL, DisplayURL: s.Name, PoolSize: 1,
		AcquireTimeout: 20 * time.Millisecond, StartupTimeout: 10 * time.Second, Logger: pgtest.Quiet(),
	})
	require.NoError(t, err)
	t.Cleanup(db.Close)
	held, err := db.Acquire(context.Background())
	require.NoError(t, err)
	defer held.Release()

	require.ErrorIs(t, db.Ping(context.Background()), postgres.ErrAcquireTimeout)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = db.Ping(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, postgres.ErrAcquireTimeout)
}
