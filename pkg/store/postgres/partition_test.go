package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

var daily = postgres.Partitioning{Enabled: true, Interval: 24 * time.Hour, Premake: 3}

// partitionedLayout is the default layout with partitioning on.
func partitionedLayout() schema.Layout {
	names := schema.DefaultNames()
	names.Partitioned = true
	return schema.New(schema.Postgres, names)
}

// partitioned gives the test a fresh migrated schema whose tables are
// partitioned by day.
func partitioned(t *testing.T) (pgtest.Schema, *postgres.DB) {
	t.Helper()
	s, db := migrated(t)
	require.NoError(t, db.Partition(context.Background(), partitionedLayout(), daily, pgtest.Quiet()))
	return s, db
}

func partitionNames(t *testing.T, db *postgres.DB, table string) []string {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT c.relname::text FROM pg_inherits i
		JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1) ORDER BY 1`, table)
	require.NoError(t, err)
	var names []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		names = append(names, n)
	}
	require.NoError(t, rows.Err())
	return names
}

func TestPartitionMakesANewDatabasePartitioned(t *testing.T) {
	t.Parallel()
	_, db := partitioned(t)
	ctx := context.Background()
	l := partitionedLayout()
	day := time.Now().UTC().Truncate(24 * time.Hour)
	for _, table := range []string{"outbox", "inbox"} {
		want := []string{table + "_default"}
		for i := range 4 {
			want = append(want, table+"_p"+day.Add(time.Duration(i)*24*time.Hour).Format("20060102_1504"))
		}
		require.ElementsMatch(t, want, partitionNames(t, db, table), table)
	}
	// The indexes of the migrations are there, on the parent, and the
	// inbox's unique key is a plain index.
	var idx []string
	rows, err := db.Pool.Query(ctx, `SELECT indexname::text FROM pg_indexes WHERE tablename IN ('outbox', 'inbox') AND schemaname = current_schema() ORDER BY 1`)
	require.NoError(t, err)
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		idx = append(idx, n)
	}
	require.Contains(t, idx, "idx_outbox_lane_sequence")
	require.Contains(t, idx, "idx_inbox_push_heads")
	require.Contains(t, idx, "idx_inbox_source_idempotency")
	require.NotContains(t, idx, "uq_inbox_source_idempotency")
	require.Contains(t, idx, "outbox_pkey")

	// The sequence still numbers the outbox.
	var seq int64
	require.NoError(t, db.Pool.QueryRow(ctx, `INSERT INTO outbox (topic, payload) VALUES ('t', '{}') RETURNING sequence`).Scan(&seq))
	require.Positive(t, seq)

	// A second start converts nothing and creates nothing.
	require.NoError(t, db.Partition(ctx, l, daily, pgtest.Quiet()))
	require.Len(t, partitionNames(t, db, "outbox"), 5)
	require.NoError(t, db.CheckPartitioning(ctx, l, true))
	err = db.CheckPartitioning(ctx, l, false)
	require.ErrorContains(t, err, "database.partitioning.enabled (QUEUEBOX_DATABASE_PARTITIONING_ENABLED) is false, but the table \"outbox\" is partitioned")
}

func TestPartitionLeavesAPopulatedTableAndTheStartRefusesIt(t *testing.T) {
	t.Parallel()
	_, db := migrated(t)
	ctx := context.Background()
	_, err := db.Pool.Exec(ctx, `INSERT INTO outbox (topic, payload) VALUES ('t', '{}')`)
	require.NoError(t, err)
	l := partitionedLayout()
	require.NoError(t, db.Partition(ctx, l, daily, pgtest.Quiet()))
	require.Empty(t, partitionNames(t, db, "outbox"))
	err = db.CheckPartitioning(ctx, l, true)
	require.ErrorContains(t, err, "database.partitioning.enabled (QUEUEBOX_DATABASE_PARTITIONING_ENABLED) is true, but the table \"outbox\" is not partitioned")
	require.NoError(t, db.CheckPartitioning(ctx, l, false))
}

func TestPartitionMaintenanceCreatesTheMissingFuturePartitions(t *testing.T) {
	t.Parallel()
	_, db := partitioned(t)
	ctx := context.Background()
	l := partitionedLayout()
	// Two days later: the two days that follow the premade ones are missing.
	later := time.Now().Add(48 * time.Hour)
	created, err := db.EnsurePartitionsAt(ctx, l, daily, later)
	require.NoError(t, err)
	require.Len(t, created, 4) // two per table
	require.Len(t, partitionNames(t, db, "inbox"), 7)
	// An insert never fails for a missing partition: a row far in the
	// future lands in the default partition.
	_, err = db.Pool.Exec(ctx, `INSERT INTO inbox (source, idempotency_key, payload, created_at) VALUES ('s', 'k', '{}', now() + interval '30 days')`)
	require.NoError(t, err)
	var n int
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT count(*) FROM inbox_default`).Scan(&n))
	require.Equal(t, 1, n)
	// The range of that row is then left to the default partition.
	created, err = db.EnsurePartitionsAt(ctx, l, postgres.Partitioning{Enabled: true, Interval: 24 * time.Hour, Premake: 40}, later)
	require.NoError(t, err)
	require.NotContains(t, created, "inbox_p"+time.Now().UTC().Add(30*24*time.Hour).Truncate(24*time.Hour).Format("20060102_1504"))
}

// TestPartitionedInboxAnswersDuplicatesAcrossPartitions races many inserts
// of one key whose rows would land on both sides of a partition boundary:
// the inserts stamp created_at with clock_timestamp(), which the test's
// sessions resolve, ahead of pg_catalog, to a function of the test schema
// that picks yesterday or today at random. Exactly one insert of each key
// stores a row.
func TestPartitionedInboxAnswersDuplicatesAcrossPartitions(t *testing.T) {
	t.Parallel()
	s, db := partitioned(t)
	ctx := context.Background()
	l := partitionedLayout()
	yesterday := time.Now().UTC().Truncate(24 * time.Hour).Add(-24 * time.Hour)
	require.NoError(t, db.AttachDay(ctx, l, queuebox.TableInbox, yesterday))
	_, err := db.Pool.Exec(ctx, `CREATE FUNCTION clock_timestamp() RETURNS timestamptz LANGUAGE sql VOLATILE
		AS $$ SELECT pg_catalog.clock_timestamp() - (random() < 0.5)::int * interval '1 day' $$`)
	require.NoError(t, err)
	shifted := s
	shifted.URL = strings.Replace(s.URL, "search_path="+s.Name, "search_path="+s.Name+"%2Cpg_catalog", 1)
	require.NotEqual(t, s.URL, shifted.URL)
	in, err := postgres.NewInbox(shifted.Open(t, 8), l)
	require.NoError(t, err)

	const keys, racers = 20, 8
	var mu sync.Mutex
	stored := map[string]int{}
	var wg sync.WaitGroup
	for r := range racers {
		wg.Go(func() {
			for k := range keys {
				row := queuebox.ReceivedRow{Source: "s", IdempotencyKey: fmt.Sprint("key-", k), Payload: []byte("{}"), Consumption: "push", State: queuebox.StatePending}
				var inserted bool
				var err error
				if r%2 == 0 {
					_, inserted, err = in.Insert(ctx, row)
				} else {
					var res []queuebox.InsertResult
					res, err = in.InsertBatch(ctx, []queuebox.ReceivedRow{row, row})
					inserted = err == nil && (res[0].Inserted || res[1].Inserted)
				}
				if !assertNoError(t, err) {
					return
				}
				if inserted {
					mu.Lock()
					stored[row.IdempotencyKey]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	require.Len(t, stored, keys)
	for k, n := range stored {
		require.Equal(t, 1, n, k)
	}
	var rows, parts int
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT tableoid) FROM inbox`).Scan(&rows, &parts))
	require.Equal(t, keys, rows)
	require.Equal(t, 2, parts, "the rows landed in both partitions")

	// A repeat of a key stored in yesterday's partition is a duplicate.
	in, err = postgres.NewInbox(db, l)
	require.NoError(t, err)
	var old string
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT idempotency_key FROM inbox WHERE created_at < now() - interval '12 hours' LIMIT 1`).Scan(&old))
	_, inserted, err := in.Insert(ctx, queuebox.ReceivedRow{Source: "s", IdempotencyKey: old, Payload: []byte("{}"), Consumption: "push", State: queuebox.StatePending})
	require.NoError(t, err)
	require.False(t, inserted)
}

func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Errorf("%v", err)
		return false
	}
	return true
}

// TestRetentionDropsOnlyOldFinalPartitions lays rows in four past days:
// the oldest day holds final old rows only and is dropped; a day with a
// pending row and, in the outbox, a day whose rows changed recently are
// kept for the row-by-row cleanup.
func TestRetentionDropsOnlyOldFinalPartitions(t *testing.T) {
	t.Parallel()
	_, db := partitioned(t)
	ctx := context.Background()
	l := partitionedLayout()
	var now time.Time
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT now()`).Scan(&now))
	day0 := now.UTC().Truncate(24 * time.Hour)
	day := func(n int) time.Time { return day0.Add(time.Duration(n) * 24 * time.Hour).Add(time.Hour) }
	for n := -4; n < 0; n++ {
		for _, table := range []queuebox.Table{queuebox.TableOutbox, queuebox.TableInbox} {
			require.NoError(t, db.AttachDay(ctx, l, table, day0.Add(time.Duration(n)*24*time.Hour)))
		}
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := db.Pool.Exec(ctx, sql, args...)
		require.NoError(t, err)
	}
	for _, state := range []string{"sent", "dead", "sent"} {
		exec(`INSERT INTO outbox (topic, payload, state, created_at, updated_at) VALUES ('t', '{}', $1, $2, $2)`, state, day(-4))
	}
	exec(`INSERT INTO outbox (topic, payload, state, created_at, updated_at) VALUES ('t', '{}', 'sent', $1, $1), ('t', '{}', 'pending', $1, $1)`, day(-3))
	exec(`INSERT INTO outbox (topic, payload, state, created_at, updated_at) VALUES ('t', '{}', 'dead', $1, now())`, day(-2))
	exec(`INSERT INTO inbox (source, idempotency_key, payload, state, created_at) VALUES ('s', 'a', '{}', 'processed', $1), ('s', 'b', '{}', 'dead', $1)`, day(-4))
	exec(`INSERT INTO inbox (source, idempotency_key, payload, state, created_at) VALUES ('s', 'c', '{}', 'processed', $1), ('s', 'd', '{}', 'processing', $1)`, day(-3))

	r, err := postgres.NewRetention(db, l)
	require.NoError(t, err)
	maxAge := now.Sub(day0.Add(-24 * time.Hour))
	n, err := r.OutboxDropPartitions(ctx, maxAge)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	n, err = r.InboxDropPartitions(ctx, maxAge)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)

	name := func(table string, n int) string {
		return table + "_p" + day0.Add(time.Duration(n)*24*time.Hour).Format("20060102_1504")
	}
	outbox, inbox := partitionNames(t, db, "outbox"), partitionNames(t, db, "inbox")
	require.NotContains(t, outbox, name("outbox", -4))
	require.Contains(t, outbox, name("outbox", -3), "a pending row keeps its partition")
	require.Contains(t, outbox, name("outbox", -2), "a row changed recently keeps its partition")
	require.NotContains(t, inbox, name("inbox", -4))
	require.Contains(t, inbox, name("inbox", -3), "a processing row keeps its partition")

	// The doctor names the kept partitions and the rows of the default one.
	exec(`INSERT INTO inbox (source, idempotency_key, payload, created_at) VALUES ('s', 'future', '{}', now() + interval '90 days')`)
	d, err := postgres.NewDiagnostics(db, l)
	require.NoError(t, err)
	reports, err := d.Partitions(ctx)
	require.NoError(t, err)
	require.Len(t, reports, 2)
	require.Equal(t, queuebox.TableInbox, reports[1].Table)
	require.EqualValues(t, 1, reports[1].DefaultRows)
	require.Len(t, reports[1].Live, 1)
	require.Equal(t, name("inbox", -3), reports[1].Live[0].Name)
	require.EqualValues(t, 1, reports[1].Live[0].Rows)
	require.Zero(t, reports[0].DefaultRows)
	require.Greater(t, reports[0].Ahead, 72*time.Hour)

	// The row-by-row cleanup then takes the final rows of the kept ones.
	deleted, err := r.InboxByAge(ctx, maxAge, 100)
	require.NoError(t, err)
	require.EqualValues(t, 1, deleted)

	// An unpartitioned store drops nothing.
	plain, err := postgres.NewRetention(db, schema.New(schema.Postgres, schema.DefaultNames()))
	require.NoError(t, err)
	n, err = plain.OutboxDropPartitions(ctx, time.Nanosecond)
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestPartitionMaintenanceHasOneOwnerAtATime races replicas, each with a
// pool of its own, for the maintenance of the same missing partitions:
// each partition is created once, by the one that held the lock, and no
// replica fails.
func TestPartitionMaintenanceHasOneOwnerAtATime(t *testing.T) {
	t.Parallel()
	s, db := partitioned(t)
	ctx := context.Background()
	l := partitionedLayout()
	later := time.Now().Add(10 * 24 * time.Hour)
	const replicas = 4
	results := make([][]string, replicas)
	owners := make([]bool, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		stores := &postgres.Stores{DB: s.Open(t, 2), Layout: l, Partitioning: daily}
		wg.Go(func() {
			created, owner, err := stores.PartitionsMaintainAt(ctx, queuebox.TableOutbox, later)
			assertNoError(t, err)
			results[i], owners[i] = created, owner
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for i, created := range results {
		if !owners[i] {
			require.Empty(t, created)
		}
		for _, name := range created {
			seen[name]++
		}
	}
	for name, n := range seen {
		require.Equal(t, 1, n, name)
	}
	// Whoever was first, the partitions of ten days ahead exist now.
	require.Contains(t, partitionNames(t, db, "outbox"),
		"outbox_p"+later.UTC().Truncate(24*time.Hour).Format("20060102_1504"))
	// And the set is its own partition store only when partitioning is on.
	_, ok := (&postgres.Stores{DB: db, Layout: l}).Partitions()
	require.False(t, ok)
}

// BenchmarkInboxInsert compares one inbox insert on the plain table (the
// unique index decides) with one on a partitioned table (the key lock and
// the look-up across partitions decide), each on its own fresh schema.
func BenchmarkInboxInsert(b *testing.B) {
	for _, tc := range []struct {
		name        string
		partitioned bool
	}{{"plain", false}, {"partitioned", true}} {
		b.Run(tc.name, func(b *testing.B) {
			_, db := pgtest.Migrated(b, 4)
			l := schema.New(schema.Postgres, schema.DefaultNames())
			if tc.partitioned {
				l = partitionedLayout()
				require.NoError(b, db.Partition(context.Background(), l, daily, pgtest.Quiet()))
			}
			in, err := postgres.NewInbox(db, l)
			require.NoError(b, err)
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				row := queuebox.ReceivedRow{Source: "s", IdempotencyKey: fmt.Sprint("k", i), Payload: []byte("{}"), Consumption: "push", State: queuebox.StatePending}
				if _, _, err := in.Insert(ctx, row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
