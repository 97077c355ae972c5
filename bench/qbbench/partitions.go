package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The sizes of the partitions scenario (issue 39). The defaults are the
// issue's; a smaller run checks the scenario, a larger one (10,000,000 or
// 30,000,000 claim rows) needs a quiet machine.
var (
	partitionClaimRows = flag.Int("partition-claim-rows", 1_000_000,
		"partitions: rows of the claim rows, 1 % of them pending, on the partitioned and the unpartitioned outbox")
	partitionRetentionRows = flag.Int("partition-retention-rows", 1_000_000,
		"partitions: final rows of the day that retention removes, by dropping its partition and by the batched DELETE")
	partitionWorkbenchRows = flag.Int("partition-workbench-rows", 10_000_000,
		"partitions: rows of the partitioned outbox the workbench lists, 1 % of them dead")
	partitionDays = flag.Int("partition-days", 10,
		"partitions: the past days the claim and workbench rows are spread over, one partition each")
)

// day is the partition interval of the scenario.
const day = 24 * time.Hour

// partitionsScenario measures the partitioned outbox: the claim beside
// the unpartitioned table, retention by drop beside the batched DELETE,
// and the workbench's first page of dead rows. It runs only when named
// (-scenarios partitions): its default sizes load 13 million rows.
func (b *bench) partitionsScenario(ctx context.Context) error {
	for name, v := range map[string]int{"-partition-claim-rows": *partitionClaimRows, "-partition-retention-rows": *partitionRetentionRows,
		"-partition-workbench-rows": *partitionWorkbenchRows, "-partition-days": *partitionDays} {
		if v < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", name, v)
		}
	}
	for _, partitioned := range []bool{true, false} {
		if err := b.partitionClaim(ctx, partitioned); err != nil {
			return err
		}
	}
	if err := b.partitionRetention(ctx); err != nil {
		return err
	}
	return b.partitionWorkbench(ctx)
}

// partitionedLayout is the default layout of a partitioned database.
func partitionedLayout() schema.Layout {
	n := schema.DefaultNames()
	n.Partitioned = true
	return schema.New(schema.Postgres, n)
}

// createPartitioned makes a fresh database partitioned by day, as
// queuebox migrate does with partitioning on, and adds the partitions of
// the past days, as days of maintenance would have left them.
func (b *bench) createPartitioned(ctx context.Context, tag string, days int) (*benchDB, error) {
	db, err := b.srv.create(ctx, tag, 4)
	if err != nil {
		return nil, err
	}
	db.Layout = partitionedLayout()
	p := postgres.Partitioning{Enabled: true, Interval: day, Premake: 3}
	if err := db.Store.Partition(ctx, db.Layout, p, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		db.drop()
		return nil, fmt.Errorf("partition %s: %w", db.Name, err)
	}
	today := time.Now().UTC().Truncate(day)
	for n := 1; n <= days; n++ {
		from := today.Add(-time.Duration(n) * day)
		if err := db.attachDay(ctx, "outbox", from); err != nil {
			db.drop()
			return nil, err
		}
	}
	return db, nil
}

// attachDay creates the partition of table for the day from.
func (d *benchDB) attachDay(ctx context.Context, table string, from time.Time) error {
	name := table + "_p" + from.Format("20060102_1504")
	err := d.exec(ctx, fmt.Sprintf(`CREATE TABLE %s (LIKE %s INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE);
		ALTER TABLE %s ATTACH PARTITION %s FOR VALUES FROM ('%s') TO ('%s')`,
		name, table, table, name, from.Format(time.RFC3339), from.Add(day).Format(time.RFC3339)))
	if err != nil {
		return fmt.Errorf("create the partition %s: %w", name, err)
	}
	return nil
}

// insertSpread adds rows outbox rows created one after the other over the
// last days days, the newest first in time order, keyed over the bench's
// keys with their destination written: the last pending % of them
// pending, the rest in state other (sent, or dead for one row in a
// hundred when deadShare). They end in today's partition and the past
// days'.
func (d *benchDB) insertSpread(ctx context.Context, rows, days, keys int, pendingPct int, deadShare bool) error {
	err := d.exec(ctx, `
		INSERT INTO outbox (topic, key, payload, destination, state, last_error, created_at, updated_at, scheduled_at)
		SELECT 'bench.event', 'key-' || lpad((g % $3::int)::text, 5, '0'),
		       jsonb_build_object('n', g, 'kind', 'bench', 'amount', g % 1000), $4,
		       CASE WHEN g > $1::int - $1::int * $5::int / 100 THEN 'pending'
		            WHEN $6 AND g % 100 = 0 THEN 'dead' ELSE 'sent' END,
		       CASE WHEN $6 AND g % 100 = 0 THEN 'HTTP 500' END,
		       t, t, t
		FROM generate_series(1, $1::int) AS g,
		     LATERAL (SELECT now() - ($1::int - g)::float8 / $1::int * $2::int * interval '1 day' AS t) AS c
		ORDER BY g`, rows, days, keys, benchDestination, pendingPct, deadShare)
	if err != nil {
		return fmt.Errorf("insert %d outbox rows: %w", rows, err)
	}
	return d.vacuumAnalyze(ctx, "outbox")
}

// partitionClaim times Claim(batch) on -partition-claim-rows rows spread
// over -partition-days days, 1 % pending (the newest), with the claimed
// rows finished as sent between claims, as claimLatencyFor does.
func (b *bench) partitionClaim(ctx context.Context, partitioned bool) error {
	rows, days := *partitionClaimRows, *partitionDays
	var db *benchDB
	var err error
	if partitioned {
		db, err = b.createPartitioned(ctx, "partclaim", days)
	} else {
		db, err = b.srv.create(ctx, "plainclaim", 4)
	}
	if err != nil {
		return err
	}
	defer db.drop()
	if err := db.insertSpread(ctx, rows, days, b.o.deliverKeys, 1, false); err != nil {
		return err
	}
	// The claims may take every pending row once, not more.
	calls := min(b.o.claimCalls, rows/100/b.o.batchSize-claimWarmup)
	if calls < 1 {
		return fmt.Errorf("-partition-claim-rows %d leaves too few pending rows for one timed claim of %d", rows, b.o.batchSize)
	}
	p50, p99, err := timeClaims(ctx, db, b.o.batchSize, calls)
	if err != nil {
		return err
	}
	kind := map[bool]string{true: "partitioned", false: "unpartitioned"}[partitioned]
	logf("claim, %s: p50 %.1f ms, p99 %.1f ms", kind, ms(p50), ms(p99))
	b.rep.add(below(fmt.Sprintf("claim(%d) p50, %s rows (1 %% pending), %s", b.o.batchSize, group(int64(rows)), kind),
		ms(p50), 20, fmt.Sprintf("p99 %.1f ms over %d calls; %s keys, created over %d days%s", ms(p99), calls,
			group(int64(b.o.deliverKeys)), days, map[bool]string{true: ", one partition a day", false: ""}[partitioned])))
	return nil
}

// timeClaims claims claimWarmup + calls times, finishing each batch as
// sent untimed, and returns the p50 and p99 of the timed claims.
func timeClaims(ctx context.Context, db *benchDB, batch, calls int) (p50, p99 time.Duration, err error) {
	ob, err := postgres.NewOutbox(db.Store, db.Layout, leaseForBench)
	if err != nil {
		return 0, 0, err
	}
	var lat []time.Duration
	for i := range claimWarmup + calls {
		t0 := time.Now()
		msgs, err := ob.Claim(ctx, batch)
		d := time.Since(t0)
		if err != nil {
			return 0, 0, err
		}
		if len(msgs) == 0 {
			return 0, 0, fmt.Errorf("claim %d returned no row", i+1)
		}
		if i >= claimWarmup {
			lat = append(lat, d)
		}
		if _, err := ob.Finish(ctx, sentOutcomes(msgs)); err != nil {
			return 0, 0, err
		}
	}
	return percentile(lat, 50), percentile(lat, 99), nil
}

// partitionWorkbench times the workbench's first page of dead rows
// (queuebox.MessageFilter{States: dead}, 50 rows) on the partitioned
// outbox of -partition-workbench-rows rows, 1 % dead, spread over
// -partition-days days.
func (b *bench) partitionWorkbench(ctx context.Context) error {
	rows, days := *partitionWorkbenchRows, *partitionDays
	db, err := b.createPartitioned(ctx, "partwb", days)
	if err != nil {
		return err
	}
	defer db.drop()
	if err := db.insertSpread(ctx, rows, days, b.o.deliverKeys, 0, true); err != nil {
		return err
	}
	w, err := postgres.NewWorkbench(db.Store, db.Layout)
	if err != nil {
		return err
	}
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateDead}}
	var lat []time.Duration
	for i := range claimWarmup + workbenchCalls {
		t0 := time.Now()
		p, err := w.List(ctx, f, 50, queuebox.Cursor{})
		if err == nil && len(p.Items) != min(50, rows/100) {
			err = fmt.Errorf("the first page holds %d rows", len(p.Items))
		}
		if err != nil {
			return fmt.Errorf("workbench list: %w", err)
		}
		if i >= claimWarmup {
			lat = append(lat, time.Since(t0))
		}
	}
	p95 := percentile(lat, 95)
	logf("workbench first dead page, partitioned: p95 %.1f ms", ms(p95))
	x := below(fmt.Sprintf("workbench list, first page of dead rows, %s rows", group(int64(rows))), ms(p95), 300,
		fmt.Sprintf("p95 over %d calls (p50 %.1f ms); partitioned, %d days, one partition a day, 1 %% dead",
			workbenchCalls, ms(percentile(lat, 50)), days))
	b.rep.add(x)
	return nil
}

// partitionRetention removes one day of -partition-retention-rows final
// rows, three days old, beside a day of newer rows (a tenth as many):
// on the partitioned outbox by dropping the day's partition, as retention
// by age does, and on the unpartitioned one by the batched DELETE of
// retention (1,000 rows a statement, its default batchSize, until a
// batch comes back short). It reports the seconds of each and the dead
// row versions each leaves in the table, which the claim steps over until
// vacuum removes them.
func (b *bench) partitionRetention(ctx context.Context) error {
	rows := *partitionRetentionRows
	drop, dropDead, dropVacuum, err := b.retentionRun(ctx, true, rows)
	if err != nil {
		return fmt.Errorf("drop: %w", err)
	}
	del, delDead, delVacuum, err := b.retentionRun(ctx, false, rows)
	if err != nil {
		return fmt.Errorf("DELETE: %w", err)
	}
	logf("retention of %d rows: drop %.3f s (%d dead tuples, vacuum %.3f s), DELETE %.3f s (%d dead tuples, vacuum %.3f s)",
		rows, drop.Seconds(), dropDead, dropVacuum.Seconds(), del.Seconds(), delDead, delVacuum.Seconds())
	ratio := "-"
	if drop > 0 {
		ratio = fmt.Sprintf("%.0f×", del.Seconds()/drop.Seconds())
	}
	b.rep.add(row{
		Scenario: fmt.Sprintf("retention, one day's partition (%s final rows): drop vs DELETE", group(int64(rows))),
		Measured: fmt.Sprintf("%.3f s", drop.Seconds()), Baseline: fmt.Sprintf("%.3f s", del.Seconds()),
		Ratio: ratio, Target: "drop < 1 s", Result: verdict(drop < time.Second),
		Notes: fmt.Sprintf("dead tuples left: drop %s, DELETE %s (batches of %s); the VACUUM that follows: drop %.3f s, DELETE %.3f s",
			group(dropDead), group(delDead), group(retentionBatch), dropVacuum.Seconds(), delVacuum.Seconds()),
	})
	return nil
}

// retentionBatch is retention's default batchSize.
const retentionBatch = 1000

// retentionRun fills a fresh database with the day to remove and newer
// rows, then times its removal, counts the dead row versions it left in
// the outbox and times the VACUUM that removes them.
func (b *bench) retentionRun(ctx context.Context, partitioned bool, rows int) (took time.Duration, dead int64, vacuum time.Duration, err error) {
	var db *benchDB
	if partitioned {
		db, err = b.createPartitioned(ctx, "partret", 3)
	} else {
		db, err = b.srv.create(ctx, "plainret", 4)
	}
	if err != nil {
		return 0, 0, 0, err
	}
	defer db.drop()
	err = db.exec(ctx, `
		INSERT INTO outbox (topic, payload, state, created_at, updated_at)
		SELECT 'bench.event', jsonb_build_object('n', g), 'sent', t, t
		FROM generate_series(1, $1::int) AS g,
		     LATERAL (SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '3 days'
		                     + g * interval '1 day' / ($1::int + 1) AS t) AS c`, rows)
	if err == nil {
		err = db.exec(ctx, `INSERT INTO outbox (topic, payload, state)
			SELECT 'bench.event', jsonb_build_object('n', g), 'sent' FROM generate_series(1, $1::int / 10) AS g`, rows)
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("insert the rows: %w", err)
	}
	if err := db.vacuumAnalyze(ctx, "outbox"); err != nil {
		return 0, 0, 0, err
	}
	r, err := postgres.NewRetention(db.Store, db.Layout)
	if err != nil {
		return 0, 0, 0, err
	}
	t0 := time.Now()
	removed, err := removeOldDay(ctx, r, partitioned)
	took = time.Since(t0)
	if err == nil && removed != int64(rows) {
		err = fmt.Errorf("retention removed %d rows, not %d", removed, rows)
	}
	if err != nil {
		return 0, 0, 0, err
	}
	if dead, err = db.deadTuples(ctx); err != nil {
		return 0, 0, 0, err
	}
	vacuum, err = db.vacuumTime(ctx)
	return took, dead, vacuum, err
}

// removeOldDay removes the rows older than two days as retention by age
// does: the partitioned store drops the partitions first, then both run
// the batched DELETE until a batch comes back short.
func removeOldDay(ctx context.Context, r *postgres.Retention, partitioned bool) (int64, error) {
	const maxAge = 2 * day
	var removed int64
	if partitioned {
		n, err := r.OutboxDropPartitions(ctx, maxAge)
		if err != nil {
			return 0, err
		}
		removed = n
	}
	for {
		n, err := r.OutboxByAge(ctx, maxAge, retentionBatch)
		removed += n
		if err != nil || n < retentionBatch {
			return removed, err
		}
	}
}

// deadTuples counts the dead row versions left in the outbox's tables
// (the table itself, or each partition of a partitioned one): those a
// later read still finds whole (pgstattuple), and those that page pruning
// cut down to a dead line pointer (pageinspect, lp_flags 3), whose index
// entries stay until vacuum. Both are contrib extensions.
func (d *benchDB) deadTuples(ctx context.Context) (int64, error) {
	for _, ext := range []string{"pgstattuple", "pageinspect"} {
		if err := d.exec(ctx, `CREATE EXTENSION IF NOT EXISTS `+ext); err != nil {
			return 0, fmt.Errorf("the %s extension (contrib) counts dead tuples: %w", ext, err)
		}
	}
	var dead int64
	err := d.Store.Pool.QueryRow(ctx, `WITH t AS (
			SELECT c.oid FROM pg_class c WHERE c.oid = 'outbox'::regclass AND c.relkind = 'r'
			UNION ALL SELECT inhrelid FROM pg_inherits WHERE inhparent = 'outbox'::regclass)
		SELECT (SELECT COALESCE(sum((pgstattuple(oid)).dead_tuple_count), 0) FROM t)
		     + (SELECT count(*) FROM t,
		            generate_series(0, pg_relation_size(t.oid) / current_setting('block_size')::int - 1) AS b,
		            LATERAL heap_page_items(get_raw_page(t.oid::regclass::text, b::int)) AS i
		        WHERE i.lp_flags = 3)`).Scan(&dead)
	if err != nil {
		return 0, fmt.Errorf("count the dead tuples: %w", err)
	}
	return dead, nil
}

// vacuumTime times the VACUUM of the outbox that the removal leaves to do.
func (d *benchDB) vacuumTime(ctx context.Context) (time.Duration, error) {
	t0 := time.Now()
	if err := d.exec(ctx, "VACUUM outbox"); err != nil {
		return 0, fmt.Errorf("vacuum outbox: %w", err)
	}
	return time.Since(t0), nil
}
