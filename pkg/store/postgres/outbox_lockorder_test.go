package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// TestRenewAndFinishOfOneReplicaDoNotDeadlock: a replica renews every
// lease it holds while its writer finishes some of the same rows, on two
// connections, each statement listing the rows in its own order. The
// statements must lock the rows in one order: a deadlock costs both a
// second (PostgreSQL's deadlock_timeout) and fails one of them, and a
// failed renewal with a short lease can lose every claim of the replica.
//
// A transaction holds the middle row, so the renewal (ids ascending) and
// the finish (ids descending) each lock their first half and then wait:
// taken in list order, each half blocks the other once the middle row is
// free.
func TestRenewAndFinishOfOneReplicaDoNotDeadlock(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	insertRows(t, conn, []string{"<null>"}, 20)
	o := outboxStore(t, db, time.Minute)
	claimed, err := o.Claim(ctx, 100)
	require.NoError(t, err)
	require.Len(t, claimed, 20)
	leases := make([]claim.Lease, len(claimed))
	for i, m := range claimed {
		leases[i] = m.Lease()
	}
	slices.SortFunc(leases, func(a, b claim.Lease) int { return compareUUID(a.ID, b.ID) })

	descending := make([]queuebox.Outcome, 0, len(leases))
	for i := len(leases) - 1; i >= 0; i-- {
		descending = append(descending, sent(leases[i]))
	}
	renewErr, finishErr := behindAHeldRow(t, s, "outbox", leases[10].ID,
		func() error { _, err := o.Renew(ctx, leases); return err },
		func() error { _, err := o.Finish(ctx, descending); return err })
	require.NoError(t, renewErr, "renewal")
	require.NoError(t, finishErr, "finish")
}

// behindAHeldRow runs first and then second while another transaction
// holds the row id of table, each started once the one before waits on
// that row, then lets the row go and returns both results. Two statements
// that lock the same rows in different orders deadlock here.
func behindAHeldRow(t *testing.T, s pgtest.Schema, table, id string, first, second func() error) (error, error) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.Connect(t).Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SELECT 1 FROM `+table+` WHERE id = $1 FOR UPDATE`, id)
	require.NoError(t, err)
	var holderPID int
	require.NoError(t, tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&holderPID))

	firstErr, secondErr := make(chan error, 1), make(chan error, 1)
	go func() { firstErr <- first() }()
	waitBlocked(t, s.Connect(t), holderPID, 1)
	go func() { secondErr <- second() }()
	waitBlocked(t, s.Connect(t), holderPID, 2)
	require.NoError(t, tx.Commit(ctx))
	return <-firstErr, <-secondErr
}

// waitBlocked waits until n backends wait, directly or through another
// waiter, on the transaction of pid.
func waitBlocked(t *testing.T, conn *pgx.Conn, pid, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		var got int
		err := conn.QueryRow(context.Background(), `
			WITH RECURSIVE blocked(pid) AS (
				SELECT a.pid FROM pg_stat_activity a WHERE $1::int = ANY (pg_blocking_pids(a.pid))
				UNION
				SELECT a.pid FROM pg_stat_activity a JOIN blocked b ON b.pid = ANY (pg_blocking_pids(a.pid))
			)
			SELECT count(*) FROM blocked`, pid).Scan(&got)
		return err == nil && got == n
	}, 10*time.Second, 5*time.Millisecond, "%d statements waiting", n)
}

// compareUUID orders UUIDs as PostgreSQL does: bytewise, which for the
// canonical lower-case text form is the string order.
func compareUUID(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// The reclaim step skips an expired row that another statement holds
// (an outcome write or renewal of the old owner that is committing)
// instead of waiting for it; the next step takes it.
func TestReclaimSkipsARowAnotherStatementHolds(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, `INSERT INTO outbox (topic, payload, state, claim_token, claimed_at, lease_expires_at)
		SELECT 'order.created', '{}', 'processing', gen_random_uuid(), now() - interval '1 hour', now() - interval '1 minute'
		FROM generate_series(1, 2)`)
	require.NoError(t, err)
	o := outboxStore(t, db, time.Minute)

	holder := s.Connect(t)
	tx, err := holder.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SELECT 1 FROM outbox WHERE id = (SELECT id FROM outbox ORDER BY id LIMIT 1) FOR UPDATE`)
	require.NoError(t, err)

	// A step that waited for the held row would run into this bound.
	bounded, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := o.ReapExpired(bounded)
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "the free row only")
	require.NoError(t, tx.Rollback(ctx))
	n, err = o.ReapExpired(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "the row once it is free")
}
