package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The doctor's vacuum check reads the row versions of a partitioned
// table from its partitions: the partitioned table itself keeps none.
func TestDiagnosticsTablesSumThePartitions(t *testing.T) {
	t.Parallel()
	s, db := partitioned(t)
	ctx := context.Background()
	conn := s.Connect(t)
	for _, stmt := range []string{
		`INSERT INTO outbox (topic, payload) SELECT 't', '{}' FROM generate_series(1, 10)`,
		`DELETE FROM outbox WHERE sequence IN (SELECT sequence FROM outbox ORDER BY sequence LIMIT 4)`,
		`SELECT pg_stat_force_next_flush()`,
		`SELECT 1`,
	} {
		_, err := conn.Exec(ctx, stmt)
		require.NoError(t, err)
	}
	d, err := postgres.NewDiagnostics(db, partitionedLayout())
	require.NoError(t, err)
	var got []queuebox.TableHealth
	require.Eventually(t, func() bool {
		got, err = d.Tables(ctx)
		require.NoError(t, err)
		return len(got) == 2 && got[0].LiveRows == 6 && got[0].DeadRows == 4
	}, 30*time.Second, 20*time.Millisecond, "%+v", got)
	require.Equal(t, `"outbox"`, got[0].Table)
	require.Equal(t, `"inbox"`, got[1].Table)
	require.Zero(t, got[1].LiveRows)
}
