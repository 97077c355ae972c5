package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// openWith opens the schema with more settings in its URL.
func openWith(t *testing.T, s pgtest.Schema, params string) *postgres.DB {
	t.Helper()
	sep := "?"
	if strings.Contains(s.URL, "?") {
		sep = "&"
	}
	db, err := postgres.Open(context.Background(), postgres.Options{
		ConnString: s.URL + sep + params, DisplayURL: s.Name, PoolSize: 2,
		AcquireTimeout: 10 * time.Second, StartupTimeout: 10 * time.Second, Logger: pgtest.Quiet(),
	})
	require.NoError(t, err)
	t.Cleanup(db.Close)
	return db
}

// The claims' estimated costs pass jit_above_cost once their tables are
// large, and JIT then compiled every claim anew (1.5 s each, in the soak).
// Here the bound is 0, so the server would compile any statement: the
// claim's plan must show no JIT. A URL that sets jit keeps its own value.
func TestClaimsRunWithoutJIT(t *testing.T) {
	t.Parallel()
	s, _ := pgtest.Migrated(t, 1)
	db := openWith(t, s, "jit_above_cost=0")
	exec(t, db, `INSERT INTO outbox (topic, payload) SELECT 't', '{}' FROM generate_series(1, 10)`)
	claim, err := postgres.RenderClaim("outbox_claim", schema.New(schema.Postgres, schema.DefaultNames()), false)
	require.NoError(t, err)
	var plan string
	err = db.Pool.QueryRow(context.Background(), "EXPLAIN (ANALYZE, FORMAT JSON) "+claim,
		boundBatch, "", 60_000, nil, "", nil).Scan(&plan)
	require.NoError(t, err)
	require.NotContains(t, plan, `"JIT"`, "the claim was compiled")

	var jit string
	require.NoError(t, openWith(t, s, "jit=on").Pool.QueryRow(context.Background(), "SHOW jit").Scan(&jit))
	require.Equal(t, "on", jit, "a URL's own jit setting")
}
