package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// The claim is planned once per connection and its generic plan kept.
// Planned anew at each call, as PostgreSQL chose with the claims' sorts
// discouraged, the plan cost the server 2 to 4 ms a claim, about as much
// as the claim itself. On a pool of one connection, the prepared claims
// show how each execution was planned.
func TestClaimsKeepTheirGenericPlan(t *testing.T) {
	t.Parallel()
	_, db := pgtest.Migrated(t, 1)
	ctx := context.Background()
	o := outboxStore(t, db, time.Minute)
	exec(t, db, `INSERT INTO outbox (topic, payload) SELECT 't', '{}' FROM generate_series(1, 40)`)
	for range 10 {
		rows, err := o.Claim(ctx, 2)
		require.NoError(t, err)
		require.NotEmpty(t, rows)
	}
	var custom, generic int64
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT coalesce(sum(custom_plans), 0), coalesce(sum(generic_plans), 0)
		FROM pg_prepared_statements WHERE statement LIKE '%Claims up to%'`).Scan(&custom, &generic))
	require.GreaterOrEqual(t, generic, int64(10), "every claim ran the kept generic plan")
	require.Zero(t, custom, "no claim was planned for its own parameters")
}
