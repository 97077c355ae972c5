package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
	wakepg "github.com/alternayte/queuebox/pkg/wake/postgres"
)

// TestRunningSeesAnOpenTransaction runs against the local PostgreSQL: a
// transaction that holds an id is running until it commits.
func TestRunningSeesAnOpenTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, check := connect(t), connect(t)

	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	var xid8 int64
	require.NoError(t, tx.QueryRow(ctx, "SELECT pg_current_xact_id()::text::bigint").Scan(&xid8))
	xid := uint32(xid8)
	older := xid - 1000 // long finished

	still, err := wakepg.PG{Q: check}.Running(ctx, []uint32{older, xid})
	require.NoError(t, err)
	require.Equal(t, []uint32{xid}, still)
	require.NoError(t, tx.Commit(ctx))
	still, err = wakepg.PG{Q: check}.Running(ctx, []uint32{older, xid})
	require.NoError(t, err)
	require.Empty(t, still)
	still, err = wakepg.PG{Q: check}.Running(ctx, []uint32{xid + 1000})
	require.NoError(t, err)
	require.Equal(t, []uint32{xid + 1000}, still, "an id not yet handed out is not finished")
}

// TestRunningAcrossAnEpoch checks the 32-to-64-bit placement on a
// snapshot whose xmax crossed into epoch 1 (xmin 2^32-6, xmax 2^32+4,
// 2^32-1 running).
func TestRunningAcrossAnEpoch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t)
	for _, c := range []struct {
		xid     uint32
		running bool
	}{
		{4294967289, false}, // before xmin, epoch 0
		{4294967293, false}, // between xmin and xmax, not listed
		{4294967295, true},  // listed as running
		{3, false},          // 2^32+3, epoch 1, below xmax
		{4, true},           // 2^32+4 = xmax
		{10, true},          // past xmax
	} {
		still, err := wakepg.RunningIn(ctx, conn, "4294967290:4294967300:4294967295", []uint32{c.xid})
		require.NoError(t, err)
		require.Equal(t, c.running, len(still) == 1, "xid %d", c.xid)
	}
}

// connect opens a connection to the local PostgreSQL, closed at the end
// of the test.
func connect(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), pgtest.LoadEnv(t).PostgresURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}
