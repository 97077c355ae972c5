package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The oldest-pending gauge covers every pending row, push and pull: the
// runbook reads it for a pull backlog too. Rows in other states do not
// count.
func TestRelayOldestPendingCoversPullRows(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	r, err := postgres.NewRelay(db, schema.New(schema.Postgres, config.Default().Database), queuebox.RelayParams{Lease: time.Minute})
	require.NoError(t, err)
	ctx := context.Background()

	age, err := r.OldestPendingAge(ctx)
	require.NoError(t, err)
	require.Zero(t, age, "no pending row")

	_, err = s.Connect(t).Exec(ctx, `INSERT INTO inbox (source, idempotency_key, payload, consumption, state, created_at) VALUES
		('orders', 'done', '{}', 'push', 'processed', '2000-01-01T00:00:00Z'),
		('orders', 'pull-1', '{}', 'pull', 'pending', now() - interval '3 hours'),
		('stripe', 'push-1', '{}', 'push', 'pending', now() - interval '1 hour')`)
	require.NoError(t, err)
	age, err = r.OldestPendingAge(ctx)
	require.NoError(t, err)
	require.InDelta(t, (3 * time.Hour).Seconds(), age.Seconds(), 60, "the pull row is the oldest")
}
