package integration

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// partitionedEnv is env with partitioning on, partitions of five minutes.
func partitionedEnv(env map[string]string) map[string]string {
	return with(env,
		"QUEUEBOX_DATABASE_PARTITIONING_ENABLED", "true",
		"QUEUEBOX_DATABASE_PARTITIONING_INTERVAL", "5m",
		"QUEUEBOX_DATABASE_PARTITIONING_PREMAKE", "2")
}

// TestPartitionedDatabaseThroughTheBinaries migrates a new database with
// partitioning on, then runs deliver with retention by age while an old
// partition of sent rows is dropped: every row is delivered once, none
// twice, and the old partition goes. A start whose setting disagrees
// with the database is refused, naming both.
func TestPartitionedDatabaseThroughTheBinaries(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	ctx := context.Background()
	rc := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(brokertest.HTTPRequest) int { return 200 }))
	env := partitionedEnv(destinationEnv(db.env(), rc.URL))
	code, stdout, stderr := cli(t, env, "migrate")
	require.Equal(t, 0, code, stdout+stderr)

	conn := db.connect(t)
	var kinds string
	require.NoError(t, conn.QueryRow(ctx, `SELECT string_agg(relname || ':' || relkind::text, ',' ORDER BY relname)
		FROM pg_class WHERE relname IN ('outbox', 'inbox')`).Scan(&kinds))
	require.Equal(t, "inbox:p,outbox:p", kinds)

	// The setting and the database disagree: the start is refused.
	refused := start(t, "deliver", with(env, "QUEUEBOX_DATABASE_PARTITIONING_ENABLED", "false"))
	require.NotEqual(t, 0, refused.wait(t, time.Minute))
	out := refused.out.String()
	require.Contains(t, out, "database.partitioning.enabled (QUEUEBOX_DATABASE_PARTITIONING_ENABLED) is false, but the table")
	require.Contains(t, out, "outbox")

	// An old partition, as an operator (or pg_partman) would attach it,
	// holding pending rows of two hours ago.
	for _, stmt := range []string{
		`CREATE TABLE outbox_old (LIKE outbox INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`,
		`DO $$ BEGIN EXECUTE format('ALTER TABLE outbox ATTACH PARTITION outbox_old FOR VALUES FROM (%L) TO (%L)',
			date_trunc('hour', now()) - interval '3 hours', date_trunc('hour', now()) - interval '1 hour'); END $$`,
		`INSERT INTO outbox (topic, payload, created_at) SELECT 'old', '{}', now() - interval '2 hours' FROM generate_series(1, 200)`,
	} {
		_, err := conn.Exec(ctx, stmt)
		require.NoError(t, err, stmt)
	}
	startServing(t, "deliver", with(env,
		"QUEUEBOX_RETENTION_ENABLED", "true",
		"QUEUEBOX_RETENTION_OUTBOX_POLICY", "AGE",
		"QUEUEBOX_RETENTION_OUTBOX_MAXAGE", "1s",
		"QUEUEBOX_RETENTION_OUTBOX_CLEANUPINTERVAL", "1s"))

	// New rows keep coming while the old partition's rows are delivered,
	// age and are dropped.
	var written atomic.Int64
	written.Store(200)
	var writeErr atomic.Value
	require.Eventually(t, func() bool {
		if _, err := conn.Exec(ctx, `INSERT INTO outbox (topic, payload) SELECT 'new', '{}' FROM generate_series(1, 5)`); err != nil {
			writeErr.Store(err)
			return true
		}
		written.Add(5)
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relname = 'outbox_old'`).Scan(&n)
		return err == nil && n == 0
	}, time.Minute, 50*time.Millisecond, "the old partition is dropped")
	require.Nil(t, writeErr.Load(), "the writes go on during the drop")
	_, err := conn.Exec(ctx, `INSERT INTO outbox (topic, payload) SELECT 'after', '{}' FROM generate_series(1, 20)`)
	require.NoError(t, err)
	written.Add(20)

	require.Eventually(t, func() bool { return int64(len(rc.Requests())) >= written.Load() }, time.Minute, 20*time.Millisecond)
	seen := map[string]int{}
	for _, r := range rc.Requests() {
		seen[r.Header.Get("X-Message-Id")]++
	}
	require.Len(t, seen, int(written.Load()), "every row delivered")
	for id, n := range seen {
		require.Equal(t, 1, n, fmt.Sprintf("message %s delivered once", id))
	}
}
