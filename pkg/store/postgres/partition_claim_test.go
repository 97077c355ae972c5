package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// pastDays attaches the partitions of the five days before today to both
// tables of a partitioned schema, as days of maintenance leave them, and
// returns the start of today (UTC).
func pastDays(t *testing.T, db *postgres.DB) time.Time {
	t.Helper()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	for n := 1; n <= 5; n++ {
		require.NoError(t, db.AttachDay(context.Background(), partitionedLayout(), queuebox.TableOutbox, today.AddDate(0, 0, -n)))
	}
	return today
}

// insertAt adds rows outbox rows created at created, keyed over keys keys
// (none when keys is 0) and routed to 'up', in state. Each row falls due a
// day before it was created, in the same order: created is often a few
// minutes into today's partition, which is still ahead of the clock just
// after midnight (UTC), and a row due then would not be claimable yet.
func insertAt(t *testing.T, db *postgres.DB, rows, keys int, state string, created time.Time) {
	t.Helper()
	exec(t, db, `INSERT INTO outbox (topic, key, payload, state, destination, created_at, scheduled_at)
		SELECT 't', CASE WHEN $2::int > 0 THEN 'k-' || (g % $2::int) END, '{}', $3, CASE WHEN $2::int > 0 THEN 'up' ELSE '' END,
		       $4::timestamptz + g * interval '1 ms', $4::timestamptz - interval '1 day' + g * interval '1 ms'
		FROM generate_series(1, $1::int) g`, rows, keys, state, created)
}

// On a partitioned outbox, the claim's lane walk runs no scan of a
// partition that holds no pending or processing row: the old days'
// partitions, full of sent rows, and the empty ones made ahead cost it
// nothing. (Only the bounds' two probes and the scans of unkeyed rows,
// once each per claim, visit every partition.) Before the claim read the lowest created_at
// of an active row, each of its scans probed every partition.
func TestPartitionedClaimSkipsPartitionsWithoutActiveRows(t *testing.T) {
	t.Parallel()
	_, db := partitioned(t)
	today := pastDays(t, db)
	for n := 1; n <= 5; n++ {
		insertAt(t, db, 500, 50, "sent", today.AddDate(0, 0, -n))
	}
	insertAt(t, db, 300, 50, "pending", today.Add(time.Minute))
	insertAt(t, db, 100, 0, "pending", today.Add(2*time.Minute))
	exec(t, db, "ANALYZE outbox")
	for _, keyedFirst := range []bool{true, false} {
		stmt, err := postgres.RenderClaim("outbox_claim", partitionedLayout(), keyedFirst)
		require.NoError(t, err)
		plan := explainPlan(t, db, stmt, boundBatch, "", 60_000, nil, "", nil, nil, nil, nil, nil, nil)
		require.Equal(t, float64(boundBatch), plan.Rows, "a whole batch is claimable")
		scans := plan.ranScans(nil, "CTE active_floor", "CTE unkeyed_null", "CTE unkeyed_empty")
		requireTodayOnly(t, "outbox", today, scans, fmt.Sprintf("keyedFirst=%v", keyedFirst))
		for _, scan := range scans {
			require.False(t, strings.HasSuffix(scan, "_created_at_idx"),
				"keyedFirst=%v: only the floor reads the active index (scans: %v)", keyedFirst, scans)
		}
	}
}

// requireTodayOnly checks that the scans of a claim's plan visit today's
// partition of table and none of the others pastDays and the premake
// leave (the five days before, three after, and the default one).
func requireTodayOnly(t *testing.T, table string, today time.Time, scans []string, what string) {
	t.Helper()
	idle := []string{table + "_default "}
	for n := -5; n <= 3; n++ {
		if n != 0 {
			idle = append(idle, table+"_p"+today.AddDate(0, 0, n).Format("20060102_1504")+" ")
		}
	}
	for _, scan := range scans {
		for _, p := range idle {
			require.False(t, strings.HasPrefix(scan, p), "%s: the claim scanned %s, which holds no active row (scans: %v)",
				what, p, scans)
		}
	}
	current := table + "_p" + today.Format("20060102_1504") + " "
	require.True(t, slices.ContainsFunc(scans, func(s string) bool { return strings.HasPrefix(s, current) }),
		"%s: today's partition is scanned: %v", what, scans)
}

// Pending rows left in an old partition (a retry that waited, a replay of
// old rows) are claimed as before: the floor is the lowest created_at of
// an active row, so it moves back to them. A key whose rows span two
// partitions keeps its order across them.
func TestPartitionedClaimTakesRowsOfOldPartitionsInOrder(t *testing.T) {
	t.Parallel()
	_, db := partitioned(t)
	today := pastDays(t, db)
	ctx := context.Background()
	insertAt(t, db, 200, 10, "sent", today.AddDate(0, 0, -4))
	insertAt(t, db, 10, 10, "pending", today.AddDate(0, 0, -3)) // the head of each of the 10 keys
	insertAt(t, db, 5, 0, "pending", today.AddDate(0, 0, -2))
	insertAt(t, db, 10, 10, "pending", today.Add(time.Minute)) // the second row of each key
	ob, err := postgres.NewOutbox(db, partitionedLayout(), time.Minute)
	require.NoError(t, err)

	first, err := ob.Claim(ctx, 100)
	require.NoError(t, err)
	old := today.AddDate(0, 0, -1)
	keys := map[string]bool{}
	for _, m := range first {
		require.True(t, m.CreatedAt.Before(old), "only the old partitions' rows are claimable first, got one created %s", m.CreatedAt)
		if m.Key != "" {
			keys[m.Key] = true
		}
	}
	require.Len(t, first, 15, "the 10 keyed heads and the 5 unkeyed rows of the old partitions")
	require.Len(t, keys, 10)

	outcomes := make([]queuebox.Outcome, len(first))
	for i, m := range first {
		outcomes[i] = queuebox.Outcome{Lease: m.Lease(), Kind: queuebox.OutcomeSent}
	}
	done, err := ob.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, done, len(first))

	second, err := ob.Claim(ctx, 100)
	require.NoError(t, err)
	require.Len(t, second, 10, "then each key's row of today")
	for _, m := range second {
		require.True(t, m.CreatedAt.After(today), "got a row created %s", m.CreatedAt)
	}
}
