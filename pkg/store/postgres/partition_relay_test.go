package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// inboxAt adds rows push rows of the source bench created at created,
// over aggregates aggregates (none when aggs is 0), in state.
func inboxAt(t *testing.T, db *postgres.DB, rows, aggs int, state string, created time.Time) {
	t.Helper()
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption, state, created_at)
		SELECT 'bench', md5(random()::text), CASE WHEN $2::int > 0 THEN 'a-' || (g % $2::int) END, '{}', 'push', $3,
		       $4::timestamptz + g * interval '1 ms'
		FROM generate_series(1, $1::int) g`, rows, aggs, state, created)
}

// On a partitioned inbox, the relay's walk of aggregates and its probe
// for a busy aggregate run no scan of a partition without pending or
// processing rows, as the outbox claim's lane walk does
// (TestPartitionedClaimSkipsPartitionsWithoutActiveRows). Before the
// claim read the bounds from idx_inbox_active_created, each probe of the
// walk visited every partition.
func TestPartitionedRelayClaimSkipsPartitionsWithoutActiveRows(t *testing.T) {
	t.Parallel()
	_, db := partitioned(t)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	for n := 1; n <= 5; n++ {
		day := today.AddDate(0, 0, -n)
		require.NoError(t, db.AttachDay(context.Background(), partitionedLayout(), queuebox.TableInbox, day))
		inboxAt(t, db, 500, 50, "processed", day)
	}
	inboxAt(t, db, 300, 50, "pending", today.Add(time.Minute))
	inboxAt(t, db, 100, 0, "pending", today.Add(2*time.Minute))
	exec(t, db, "ANALYZE inbox")
	for _, keyedFirst := range []bool{true, false} {
		stmt, err := postgres.RenderClaim("inbox_relay_claim", partitionedLayout(), keyedFirst)
		require.NoError(t, err)
		plan := explainPlan(t, db, stmt, boundBatch, 60_000, []string{"bench"}, nil, "", nil, nil, nil, nil, nil)
		require.Equal(t, float64(boundBatch), plan.Rows, "a whole batch is claimable")
		scans := plan.ranScans(nil, "CTE active_floor", "CTE unkeyed")
		requireTodayOnly(t, "inbox", today, scans, fmt.Sprintf("keyedFirst=%v", keyedFirst))
	}
}
