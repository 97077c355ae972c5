package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/alternayte/queuebox/pkg/schema"
)

// Partitioning is the time partitioning of the outbox and inbox tables
// (database.partitioning). With Enabled, both tables are range-partitioned
// by created_at into partitions of Interval, with a default partition
// that takes a row no other partition covers.
type Partitioning struct {
	// Enabled says the tables are, or are to be made, partitioned.
	Enabled bool
	// Interval is the time range of one partition; it must be above zero
	// when Enabled.
	Interval time.Duration
	// Premake is how many partitions after the one of now are kept ready.
	Premake int
}

// partitionLockTimeout bounds each wait for a table lock of partition
// maintenance and retention. While a DDL statement waits for its lock,
// every later query of the table queues behind it; a short bound turns a
// long wait (a claim that runs long, an idle transaction that read the
// table) into a skipped cycle, which the next cycle makes up for.
const partitionLockTimeout = "2s"

// tableKind reads whether the table named quoted (resolved through the
// search path) is partitioned; found is false when it does not exist.
func tableKind(ctx context.Context, q pgx.Tx, quoted string) (partitioned, found bool, err error) {
	var kind *string
	if err := q.QueryRow(ctx, `SELECT relkind::text FROM pg_class WHERE oid = to_regclass($1)`, quoted).Scan(&kind); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return false, false, nil
		}
		return false, false, fmt.Errorf("read the kind of %s: %w", quoted, err)
	}
	return kind != nil && *kind == "p", kind != nil, nil
}

// CheckPartitioning stops the start when database.partitioning.enabled
// and the tables disagree: each table must be partitioned exactly when
// enabled is true. The database records the mode itself (a partitioned
// table is of its own kind in pg_class), so the check cannot drift from
// what the tables are. The error names the setting and the table.
func (db *DB) CheckPartitioning(ctx context.Context, l schema.Layout, enabled bool) error {
	return pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		for _, table := range []string{l.O.Table, l.I.Table} {
			partitioned, found, err := tableKind(ctx, tx, table)
			switch {
			case err != nil:
				return err
			case !found || partitioned == enabled:
				continue
			case enabled:
				return fmt.Errorf("database.partitioning.enabled (QUEUEBOX_DATABASE_PARTITIONING_ENABLED) is true, but the table %s is not partitioned: "+
					"a populated database is not converted at start; set it to false, or convert the tables with queuebox migrate partition (docs/partitions.md)", table)
			default:
				return fmt.Errorf("database.partitioning.enabled (QUEUEBOX_DATABASE_PARTITIONING_ENABLED) is false, but the table %s is partitioned: "+
					"set it to true so that QueueBox keeps its partitions", table)
			}
		}
		return nil
	})
}

// Partition makes the freshly migrated tables of l partitioned when
// p.Enabled, then creates the partitions that are missing from now to
// p.Premake intervals ahead. It runs under the migration lock, after
// Migrate, so replicas that start together convert once. A table that is
// already partitioned is kept; a table that holds rows is never converted
// here (CheckPartitioning then refuses the start). It does nothing when
// p.Enabled is false.
func (db *DB) Partition(ctx context.Context, l schema.Layout, p Partitioning, log *slog.Logger) error {
	if !p.Enabled {
		return nil
	}
	conn, err := db.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("partition: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, migrationLockSQL); err != nil {
		return fmt.Errorf("partition: take the migration lock: %w", err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, migrationUnlockSQL); err != nil {
			conn.Conn().Close(uctx) //nolint:errcheck // dropping the session releases the lock
		}
	}()
	converted, err := convertEmpty(ctx, conn.Conn(), partitionedTables(l))
	if err != nil {
		return err
	}
	for _, table := range converted {
		log.Info("partition: the table is now partitioned by created_at", "table", table)
	}
	for _, t := range partitionedTables(l) {
		if t.activeIndex {
			if err := db.ensureActiveIndex(ctx, t, log); err != nil {
				return err
			}
		}
	}
	_, err = db.ensurePartitions(ctx, l, p, time.Time{}, log)
	return err
}

// isPartitioned reads whether the table is partitioned.
func (db *DB) isPartitioned(ctx context.Context, t partTable) (bool, error) {
	var partitioned bool
	err := db.Pool.QueryRow(ctx, `SELECT COALESCE((SELECT relkind = 'p' FROM pg_class WHERE oid = to_regclass($1)), false)`,
		t.quoted).Scan(&partitioned)
	if err != nil {
		return false, fmt.Errorf("read the kind of %s: %w", t.raw, err)
	}
	return partitioned, nil
}

// partTable is one table that QueueBox partitions: its raw name and the
// columns its partition checks read.
type partTable struct {
	raw, quoted, state, createdAt string
	// final lists the final states, which retention may drop.
	final [2]string
	// activeIndex is set for both tables: see activeIndexName.
	activeIndex bool
}

// activeIndexName is the index that a partitioned table has and an
// unpartitioned one does not: the created_at of its pending and processing
// rows. The claims (outbox_claim.sql, and the relay's inbox_relay_claim.sql)
// read the lowest and the highest of them from it and bound their scans
// by them, so PostgreSQL prunes the partitions that hold no such row (the
// old days' and the ones made ahead, in the normal course) instead of
// probing each.
func (t partTable) activeIndexName() string { return "idx_" + t.raw + "_active_created" }

// activeIndexOn is the statement that builds the active index on the
// table quoted (the partitioned one or the old table of a conversion),
// with how ("" or " CONCURRENTLY") between INDEX and its name. The claim's
// min() repeats its predicate word for word. The predicate's second
// condition, true of every row, is there for the planner: the claim's
// other scans bound created_at by a value it does not know when it plans,
// so it cannot prove the condition from theirs and keeps this index out
// of them. Without it, it took the index for a scan ordered by other
// columns and sorted the whole partition's active rows.
func (t partTable) activeIndexOn(how, quoted string) string {
	return "CREATE INDEX" + how + " " + quoteIdent(t.activeIndexName()) + " ON " + quoted +
		" (" + t.createdAt + ") WHERE " + t.state + " IN ('pending', 'processing') AND " + t.createdAt + " > '-infinity'"
}

// ensureActiveIndex builds the active index on a partitioned table that
// lacks it (one partitioned before the index existed). It reads the
// catalog first, so that a start does not take the table lock of CREATE
// INDEX when there is nothing to build.
func (db *DB) ensureActiveIndex(ctx context.Context, t partTable, log *slog.Logger) error {
	var exists bool
	err := db.Pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, quoteIdent(t.activeIndexName())).Scan(&exists)
	if err != nil || exists {
		return err
	}
	start := time.Now()
	if _, err := db.Pool.Exec(ctx, t.activeIndexOn("", t.quoted)); err != nil {
		return fmt.Errorf("partition %s: build the index %s: %w", t.raw, t.activeIndexName(), err)
	}
	log.Info("partition: built the claim's index", "table", t.raw, "index", t.activeIndexName(), "took_ms", time.Since(start).Milliseconds())
	return nil
}

func partitionedTables(l schema.Layout) []partTable {
	return []partTable{
		{raw: l.OutboxTable, quoted: l.O.Table, state: l.O.State, createdAt: l.O.CreatedAt, final: [2]string{"sent", "dead"}, activeIndex: true},
		{raw: l.InboxTable, quoted: l.I.Table, state: l.I.State, createdAt: l.I.CreatedAt, final: [2]string{"processed", "dead"}, activeIndex: true},
	}
}
