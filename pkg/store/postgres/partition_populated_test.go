package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// populate writes outbox rows in every state, keyed in two lanes, and
// inbox rows, some of them a day old; it returns the outbox's sequence
// numbers in id order.
func populate(t *testing.T, conn *pgx.Conn) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	for _, s := range []string{
		`INSERT INTO outbox (topic, key, destination, payload, state, created_at)
			SELECT 't', 'k' || (g % 3), CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, '{}',
				(ARRAY['pending', 'processing', 'sent', 'dead'])[1 + g % 4], now() - (g % 2) * interval '1 day'
			FROM generate_series(1, 200) g`,
		`INSERT INTO inbox (source, idempotency_key, payload, state, created_at)
			SELECT 's', 'key-' || g, '{}', (ARRAY['pending', 'processed'])[1 + g % 2], now() - (g % 2) * interval '1 day'
			FROM generate_series(1, 100) g`,
	} {
		_, err := conn.Exec(ctx, s)
		require.NoError(t, err)
	}
	rows, err := conn.Query(ctx, `SELECT id::text, sequence FROM outbox`)
	require.NoError(t, err)
	seqs := map[string]int64{}
	for rows.Next() {
		var id string
		var n int64
		require.NoError(t, rows.Scan(&id, &n))
		seqs[id] = n
	}
	require.NoError(t, rows.Err())
	return seqs
}

// indexDefs lists the index definitions of a table with the schema's
// name taken out, to compare two schemas.
func indexDefs(t *testing.T, conn *pgx.Conn, schemaName, table string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT replace(indexdef, $1 || '.', '') FROM pg_indexes
		WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname`, schemaName, table)
	require.NoError(t, err)
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return defs
}

func TestConvertPopulatedKeepsRowsSequenceKeysGrantsAndPublication(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	ctx := context.Background()
	conn := s.Connect(t)
	seqs := populate(t, conn)
	pub := "qbt_pub_" + s.Name
	for _, stmt := range []string{
		`CREATE PUBLICATION ` + pub + ` FOR TABLE outbox`,
		`GRANT SELECT, INSERT ON outbox TO PUBLIC`,
	} {
		_, err := conn.Exec(ctx, stmt)
		require.NoError(t, err)
	}
	t.Cleanup(func() { _, _ = s.Connect(t).Exec(context.Background(), `DROP PUBLICATION IF EXISTS `+pub) })

	var steps []queuebox.ConversionStep
	l := partitionedLayout()
	err := db.ConvertPopulated(ctx, l, daily, postgres.ConvertOptions{Step: func(s queuebox.ConversionStep) { steps = append(steps, s) }})
	require.NoError(t, err)
	require.NoError(t, db.CheckPartitioning(ctx, l, true))

	// The old table is the first partition and keeps every row; the
	// default partition and the premade ones follow the boundary.
	var bound time.Time
	require.NoError(t, conn.QueryRow(ctx, `SELECT (regexp_match(pg_get_expr(relpartbound, oid), 'TO \(''([^'']*)''\)'))[1]::timestamptz
		FROM pg_class WHERE relname = 'outbox_legacy' AND relnamespace = $1::text::regnamespace`, s.Name).Scan(&bound))
	require.False(t, bound.Before(time.Now().Add(time.Hour)), "the boundary is a margin ahead")
	require.Equal(t, bound, bound.Truncate(24*time.Hour), "the boundary starts a day")
	for _, table := range []string{"outbox", "inbox"} {
		names := partitionNames(t, db, table)
		require.Contains(t, names, table+"_legacy")
		require.Contains(t, names, table+"_default")
		require.Contains(t, names, table+"_p"+bound.UTC().Format("20060102_1504"))
	}
	var rows, outside int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE tableoid <> 'outbox_legacy'::regclass) FROM outbox`).Scan(&rows, &outside))
	require.Equal(t, len(seqs), rows)
	require.Zero(t, outside)
	for id, n := range seqs {
		var got int64
		require.NoError(t, conn.QueryRow(ctx, `SELECT sequence FROM outbox WHERE id = $1`, id).Scan(&got))
		require.Equal(t, n, got)
	}

	// The partitioned tables have the indexes of a new partitioned
	// database, and no check is left behind.
	fresh, _ := partitioned(t)
	for _, table := range []string{"outbox", "inbox"} {
		require.Equal(t, indexDefs(t, conn, fresh.Name, table), indexDefs(t, conn, s.Name, table), table)
	}
	var checks int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM pg_constraint WHERE conname LIKE '%partition_bound'
		AND connamespace = $1::text::regnamespace`, s.Name).Scan(&checks))
	require.Zero(t, checks)

	// The sequence belongs to the new table and goes on numbering.
	var owner *string
	var next int64
	require.NoError(t, conn.QueryRow(ctx, `SELECT pg_get_serial_sequence('outbox', 'sequence')`).Scan(&owner))
	require.NotNil(t, owner)
	require.NoError(t, conn.QueryRow(ctx, `INSERT INTO outbox (topic, payload) VALUES ('t', '{}') RETURNING sequence`).Scan(&next))
	for _, n := range seqs {
		require.Greater(t, next, n)
	}

	// A key of the old table is a duplicate for the partitioned inbox.
	in, err := postgres.NewInbox(db, l)
	require.NoError(t, err)
	for key, want := range map[string]bool{"key-7": false, "key-8": false, "key-101": true} {
		_, inserted, err := in.Insert(ctx, queuebox.ReceivedRow{Source: "s", IdempotencyKey: key, Payload: []byte("{}"), Consumption: "push", State: queuebox.StatePending})
		require.NoError(t, err)
		require.Equal(t, want, inserted, key)
	}

	// Grants and the publication follow the table.
	var canInsert, viaRoot bool
	var published string
	require.NoError(t, conn.QueryRow(ctx, `SELECT has_table_privilege('public', 'outbox', 'INSERT')`).Scan(&canInsert))
	require.True(t, canInsert)
	require.NoError(t, conn.QueryRow(ctx, `SELECT p.pubviaroot, string_agg(r.prrelid::regclass::text, ',')
		FROM pg_publication p JOIN pg_publication_rel r ON r.prpubid = p.oid WHERE p.pubname = $1 GROUP BY 1`, pub).Scan(&viaRoot, &published))
	require.True(t, viaRoot)
	require.Equal(t, "outbox", published)

	// Only the short steps blocked the table.
	var blocking []string
	for _, st := range steps {
		if st.Blocking {
			blocking = append(blocking, st.Table+": "+st.Step)
			require.Equal(t, "ACCESS EXCLUSIVE", st.Lock)
		}
	}
	require.Equal(t, []string{
		"outbox: add CHECK (created_at < boundary) NOT VALID", "outbox: switch: rename, create the partitioned table, attach the old one",
		"inbox: add CHECK (created_at < boundary) NOT VALID", "inbox: switch: rename, create the partitioned table, attach the old one",
	}, blocking)

	// A second run finds both tables converted.
	steps = nil
	require.NoError(t, db.ConvertPopulated(ctx, l, daily, postgres.ConvertOptions{Step: func(s queuebox.ConversionStep) { steps = append(steps, s) }}))
	require.Equal(t, "already partitioned", steps[0].Step)
}

func TestConvertPopulatedRefusesATableWithATrigger(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	ctx := context.Background()
	conn := s.Connect(t)
	for _, stmt := range []string{
		`CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`,
		`CREATE TRIGGER outbox_touch BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION touch()`,
	} {
		_, err := conn.Exec(ctx, stmt)
		require.NoError(t, err)
	}
	err := db.ConvertPopulated(ctx, partitionedLayout(), daily, postgres.ConvertOptions{})
	require.ErrorContains(t, err, "convert outbox: the table has trigger outbox_touch, which would stay with the old table")
	require.Empty(t, partitionNames(t, db, "outbox"))
}

// A switch that fails (here a table already holds the old table's new
// name) undoes itself and removes the bound check, so the table does not
// start refusing rows at the boundary; the indexes built so far stay for
// the next run.
func TestConvertPopulatedRemovesTheCheckWhenTheSwitchFails(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	ctx := context.Background()
	conn := s.Connect(t)
	populate(t, conn)
	_, err := conn.Exec(ctx, `CREATE TABLE outbox_legacy (n int)`)
	require.NoError(t, err)
	err = db.ConvertPopulated(ctx, partitionedLayout(), daily, postgres.ConvertOptions{})
	require.ErrorContains(t, err, `relation "outbox_legacy" already exists`)
	var checks, built int
	require.NoError(t, conn.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM pg_constraint WHERE conname = 'outbox_partition_bound' AND connamespace = $1::text::regnamespace),
		(SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname = 'outbox_legacy_pkey')`, s.Name).Scan(&checks, &built))
	require.Zero(t, checks)
	require.Equal(t, 1, built)
	require.Empty(t, partitionNames(t, db, "outbox"))

	// Once the name is free, a second run converts, keeping that index.
	_, err = conn.Exec(ctx, `DROP TABLE outbox_legacy`)
	require.NoError(t, err)
	var steps []string
	require.NoError(t, db.ConvertPopulated(ctx, partitionedLayout(), daily, postgres.ConvertOptions{
		Step: func(s queuebox.ConversionStep) { steps = append(steps, s.Step) }}))
	require.Contains(t, steps, "index outbox_legacy_pkey already built")
	require.Contains(t, partitionNames(t, db, "outbox"), "outbox_legacy")
}

// A blocking step that does not get its lock within the lock timeout
// lets the table go and asks again: here a reader holds the outbox until
// the first wait for the bound check has given up.
func TestConvertPopulatedAsksAgainForABusyTable(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	ctx := context.Background()
	populate(t, s.Connect(t))
	reader := s.Connect(t)
	tx, err := reader.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT count(*) FROM outbox`)
	require.NoError(t, err)

	var mu sync.Mutex
	var steps []queuebox.ConversionStep
	done := make(chan error, 1)
	go func() {
		done <- db.ConvertPopulated(ctx, partitionedLayout(), daily, postgres.ConvertOptions{
			LockTimeout: 200 * time.Millisecond,
			Step: func(s queuebox.ConversionStep) {
				mu.Lock()
				defer mu.Unlock()
				steps = append(steps, s)
			}})
	}()
	// Wait for a first wait for the lock to start and to give up.
	watcher := s.Connect(t)
	waiting := func() bool {
		var n int
		require.NoError(t, watcher.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE relation = 'outbox'::regclass AND NOT granted`).Scan(&n))
		return n > 0
	}
	require.Eventually(t, waiting, time.Minute, time.Millisecond)
	require.Eventually(t, func() bool { return !waiting() }, time.Minute, time.Millisecond)
	require.NoError(t, tx.Rollback(ctx))
	require.NoError(t, <-done)

	mu.Lock()
	defer mu.Unlock()
	var bound queuebox.ConversionStep
	for _, st := range steps {
		if st.Table == "outbox" && strings.HasPrefix(st.Step, "add CHECK") {
			bound = st
		}
	}
	require.GreaterOrEqual(t, bound.Tries, 2, "%+v", steps)
	require.Contains(t, partitionNames(t, db, "outbox"), "outbox_legacy")
}
