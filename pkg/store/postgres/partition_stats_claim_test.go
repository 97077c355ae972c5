package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// A partition that autovacuum analyzed while nearly all of its rows were
// finished (the common case: deliver keeps up, then falls behind) has
// statistics that put its pending rows near zero. On such statistics the
// claims' lock probe, one per candidate, chose the partition's index of
// due pending rows over its primary key and read every due row of the
// backlog once per candidate: 100 candidates behind a backlog of 15,000
// rows made the soak's claims take seconds. The probe now names the key's
// columns alone. On the same statistics each ordered read with a limit
// (the lanes' probes, the scans of unkeyed rows, the bounds of the active
// rows) became a read of every matching entry and a sort; the claims and
// the routing scan now run with sorting discouraged (postgres.ClaimBegin).
// Their cost stays bounded by the batch.
func TestPartitionedClaimsStayBoundedOnStatisticsOfFinishedRows(t *testing.T) {
	t.Parallel()
	claims := []struct {
		table, stmt, final string
		insert             func(t *testing.T, db *postgres.DB, rows, keys int, state string, created time.Time)
		args               []any
	}{
		{"outbox", "outbox_claim", "sent", insertAt, []any{boundBatch, "", 60_000, nil, "", nil, nil, nil, nil, nil, nil}},
		{"inbox", "inbox_relay_claim", "processed", inboxAt, []any{boundBatch, 60_000, []string{"bench"}, nil, "", nil, nil, nil, nil, nil}},
	}
	for _, c := range claims {
		for _, keyedFirst := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/keyedFirst=%v", c.stmt, keyedFirst), func(t *testing.T) {
				t.Parallel()
				_, db := partitioned(t)
				today := time.Now().UTC().Truncate(24 * time.Hour)
				exec(t, db, "ALTER TABLE "+c.table+"_p"+today.Format("20060102_1504")+" SET (autovacuum_enabled = false)")
				c.insert(t, db, 20_000, 50, c.final, today.Add(time.Minute))
				exec(t, db, "ANALYZE "+c.table)
				c.insert(t, db, 5_000, 50, "pending", today.Add(2*time.Minute))
				c.insert(t, db, 5_000, 0, "pending", today.Add(3*time.Minute))
				stmt, err := postgres.RenderClaim(c.stmt, partitionedLayout(), keyedFirst)
				require.NoError(t, err)
				touched, claimed, scans := explainCost(t, db, stmt, c.args...)
				require.Equal(t, float64(boundBatch), claimed, "a whole batch is claimable")
				require.LessOrEqual(t, touched, float64(claimBound), "rows the claim's scans touched: %v", scans)
			})
		}
	}
	t.Run("routing scan", func(t *testing.T) {
		t.Parallel()
		_, db := partitioned(t)
		today := time.Now().UTC().Truncate(24 * time.Hour)
		exec(t, db, "ALTER TABLE outbox_p"+today.Format("20060102_1504")+" SET (autovacuum_enabled = false)")
		insertAt(t, db, 20_000, 50, "sent", today.Add(time.Minute))
		exec(t, db, "ANALYZE outbox")
		exec(t, db, `INSERT INTO outbox (topic, key, payload, created_at)
			SELECT 't', 'k-' || (g % 50), '{}', $1::timestamptz + g * interval '1 ms'
			FROM generate_series(1, 5000) g`, today.Add(2*time.Minute))
		stmt, err := postgres.Render("outbox_unrouted", partitionedLayout())
		require.NoError(t, err)
		touched, read, scans := explainCost(t, db, stmt, boundBatch, nil)
		require.Equal(t, float64(boundBatch), read, "a whole batch is read")
		require.LessOrEqual(t, touched, float64(claimBound), "rows the scan touched: %v", scans)
	})
}

// The routing of rows (outbox_assign.sql: keyed rows before their claim,
// rows without a key at their claim) on a partition analyzed while it was
// empty, as every new partition is until autovacuum analyzes it: its
// lock and its update find the rows by their primary key, not by reading
// every pending and processing row of the partition (which they did for
// the first seconds of each new partition in the soak, 1 to 2 s each).
func TestPartitionedRoutingStaysBoundedOnStatisticsOfAnEmptyPartition(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, db := partitioned(t)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	exec(t, db, "ALTER TABLE outbox_p"+today.Format("20060102_1504")+" SET (autovacuum_enabled = false)")
	exec(t, db, "ANALYZE outbox")
	insertAt(t, db, 10_000, 0, "pending", today.Add(time.Minute)) // rows without a key nor a destination
	rows, err := db.Pool.Query(ctx, `UPDATE outbox SET state = 'processing', claim_token = gen_random_uuid(),
		lease_expires_at = now() + interval '1 minute'
		WHERE id IN (SELECT id FROM outbox ORDER BY sequence LIMIT $1) RETURNING id::text, claim_token::text`, boundBatch)
	require.NoError(t, err)
	var ids, tokens, dests, reasons []string
	for rows.Next() {
		var id, token string
		require.NoError(t, rows.Scan(&id, &token))
		ids, tokens, dests, reasons = append(ids, id), append(tokens, token), append(dests, "d"), append(reasons, "")
	}
	require.NoError(t, rows.Err())
	require.Len(t, ids, boundBatch)
	stmt, err := postgres.Render("outbox_assign", partitionedLayout())
	require.NoError(t, err)
	root := explainPlanIn(t, db, "BEGIN", stmt, ids, dests, tokens, []string{}, []string{}, nil, reasons)
	require.Equal(t, float64(boundBatch), root.Rows, "every row is routed")
	require.LessOrEqual(t, root.touched(), float64(claimBound), "rows the routing's scans touched: %v", root.scans(nil))
}

// The deliver claim and the routing scan run without a transaction of
// their own: the setting goes in the same pipelined batch, holds for the
// statement only, and raises no warning (SET LOCAL there warned, for
// every claim, that it was outside a transaction block: the soak's
// server log filled with it).
func TestClaimStatementsRunWithSortingOff(t *testing.T) {
	t.Parallel()
	_, db := migrated(t)
	in, after, notices, err := db.SettingInClaim(context.Background(), "enable_sort")
	require.NoError(t, err)
	require.Equal(t, "off", in, "the claim's statement is planned with sorting off")
	require.Equal(t, "on", after, "the setting ends with the claim's implicit transaction")
	require.Empty(t, notices, "the setting warns of nothing: a warning per claim would fill the server's log")

	in, after, _, err = db.SettingInClaim(context.Background(), "plan_cache_mode")
	require.NoError(t, err)
	require.Equal(t, "force_generic_plan", in, "the claim keeps its generic plan")
	require.Equal(t, "auto", after, "other statements plan as the server decides")
}
