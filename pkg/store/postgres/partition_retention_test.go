package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// A backlog keeps an old partition from being dropped, and the cleanup
// deletes that partition's final rows one batch at a time. Each cycle
// ends with a batch that comes back short; that batch must not read the
// partitions newer than the age, which hold no row old enough and, on a
// busy database, most of the table. The test counts the rows the delete
// touched (EXPLAIN ANALYZE, rolled back), then deletes for real.
func TestRowRetentionReadsNoPartitionNewerThanItsAge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, db := partitioned(t)
	today := pastDays(t, db)
	yesterday := today.Add(-23 * time.Hour)
	const old, recent = 50, 20_000
	exec(t, db, `INSERT INTO outbox (topic, payload, state, created_at, updated_at)
		SELECT 't', '{}', 'sent', $1, $1 FROM generate_series(1, $2)`, yesterday, old)
	exec(t, db, `INSERT INTO outbox (topic, payload, state, created_at) VALUES ('t', '{}', 'pending', $1)`, yesterday)
	exec(t, db, `INSERT INTO outbox (topic, payload, state, created_at)
		SELECT 't', '{}', 'sent', $1 FROM generate_series(1, $2)`, today.Add(time.Minute), recent)
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, payload, state, created_at)
		SELECT 's', 'old-' || g, '{}', 'processed', $1 FROM generate_series(1, $2) g`, yesterday, old)
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, payload, state, created_at)
		SELECT 's', 'new-' || g, '{}', 'processed', $1 FROM generate_series(1, $2) g`, today.Add(time.Minute), recent)
	exec(t, db, `ANALYZE outbox; ANALYZE inbox`)

	r, err := postgres.NewRetention(db, partitionedLayout())
	require.NoError(t, err)
	// The age puts the cutoff an hour before today's partition begins.
	age := time.Since(today.Add(-time.Hour))
	outboxAge, inboxAge := r.AgeStatements()
	for name, stmt := range map[string]string{"outbox": outboxAge, "inbox": inboxAge} {
		root := explainPlanIn(t, db, "BEGIN", stmt, age.Milliseconds(), 2*old)
		require.Less(t, root.touched(), float64(10*old), "%s: the short batch touched %v", name, root.scans(nil))
	}
	n, err := r.OutboxByAge(ctx, age, 2*old)
	require.NoError(t, err)
	require.EqualValues(t, old, n, "the old final rows go, the pending row stays")
	n, err = r.InboxByAge(ctx, age, 2*old)
	require.NoError(t, err)
	require.EqualValues(t, old, n)
	var left int
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM outbox) + (SELECT count(*) FROM inbox)`).Scan(&left))
	require.Equal(t, 2*recent+1, left)
}
