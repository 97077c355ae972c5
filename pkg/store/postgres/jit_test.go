package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// The claims' estimated costs pass jit_above_cost once their tables are
// large, and JIT then compiled every claim anew (1.5 s each, in the soak).
// Here the bound is 0, so the server would compile any statement: the
// claim's plan must show no JIT. A URL that sets jit keeps its own value.
func TestClaimsRunWithoutJIT(t *testing.T) {
	t.Parallel()
	s, _ := pgtest.Migrated(t, 1)
	db := s.OpenWith(t, 2, "jit_above_cost=0")
	exec(t, db, `INSERT INTO outbox (topic, payload) SELECT 't', '{}' FROM generate_series(1, 10)`)
	claim, err := postgres.RenderClaim("outbox_claim", schema.New(schema.Postgres, schema.DefaultNames()), false)
	require.NoError(t, err)
	var plan string
	err = db.Pool.QueryRow(context.Background(), "EXPLAIN (ANALYZE, FORMAT JSON) "+claim,
		boundBatch, "", 60_000, nil, "", nil, nil, nil, nil, nil, nil).Scan(&plan)
	require.NoError(t, err)
	require.NotContains(t, plan, `"JIT"`, "the claim was compiled")

	var jit string
	require.NoError(t, s.OpenWith(t, 2, "jit=on").Pool.QueryRow(context.Background(), "SHOW jit").Scan(&jit))
	require.Equal(t, "on", jit, "a URL's own jit setting")
}
