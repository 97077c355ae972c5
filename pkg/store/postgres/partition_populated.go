package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
)

// Defaults of ConvertOptions.
const (
	// DefaultConvertMargin leaves an hour for validating the bound check
	// and for the switch: the validation reads the table once, which
	// takes seconds per ten million rows, and the switch waits for its
	// lock a few seconds at a time.
	DefaultConvertMargin = time.Hour
	// DefaultConvertTries is how often a blocking step asks for its lock.
	DefaultConvertTries = 30
)

// switchStatementTimeout bounds each statement of the switch, which
// changes the catalog only. Should an index of the partitioned table find
// no twin on the old one, the attach would build it under the switch's
// lock; the bound turns that into a failed try instead of a long stop.
const switchStatementTimeout = 30 * time.Second

// ConvertOptions configure ConvertPopulated; zero values take the
// defaults.
type ConvertOptions struct {
	// Margin is the least time between adding the bound check and the
	// boundary it names: the first multiple of the partition interval at
	// least Margin after the database clock. The old table becomes the
	// partition of every created_at before the boundary. The check
	// refuses rows at or after the boundary until the switch commits, so
	// Margin must exceed the time the validation and the switch take.
	Margin time.Duration
	// LockTimeout bounds each wait for a lock that stops the table's
	// readers and writers (2 s by default): while a blocking step waits,
	// every later query of the table queues behind it.
	LockTimeout time.Duration
	// Tries is how often a blocking step asks for its lock before it
	// gives up (DefaultConvertTries).
	Tries int
	// Step receives each step as it ends, on the calling goroutine; nil
	// drops them.
	Step func(queuebox.ConversionStep)
}

func (o ConvertOptions) withDefaults() ConvertOptions {
	if o.Margin <= 0 {
		o.Margin = DefaultConvertMargin
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 2 * time.Second
	}
	if o.Tries <= 0 {
		o.Tries = DefaultConvertTries
	}
	if o.Step == nil {
		o.Step = func(queuebox.ConversionStep) {}
	}
	return o
}

// ConvertPopulated makes the unpartitioned outbox and inbox of l, which
// may hold rows, partitioned by created_at, in the shape that Partition
// gives a new database, while applications write and the roles claim.
// The rows stay where they are: the old table becomes the first
// partition, <table>_legacy, of every created_at before a boundary (see
// ConvertOptions.Margin). Per table:
//
//  1. refuse a table that other objects depend on (foreign keys,
//     triggers, views, policies, inheritance): they would stay with the
//     old table;
//  2. build CONCURRENTLY what the old table lacks to be a partition: a
//     unique index on (id, created_at) for the primary key, and a plain
//     copy of every other unique index (a partitioned table cannot hold a
//     unique index without created_at);
//  3. add CHECK (created_at < boundary) NOT VALID, a brief ACCESS
//     EXCLUSIVE lock, then validate it under SHARE UPDATE EXCLUSIVE,
//     which lets reads and writes go on, so that the attach scans nothing;
//  4. switch, in one short transaction under ACCESS EXCLUSIVE (see
//     switchTable);
//  5. create the partitions from the boundary on, premake ahead.
//
// A table that is already partitioned is left as it is, so running it
// again finishes a conversion that stopped half way. Each blocking step
// waits at most o.LockTimeout for its lock and asks again, o.Tries times
// at most and never past the boundary; when the switch does not happen,
// the bound check is removed again. ctx cancels the step that runs.
func (db *DB) ConvertPopulated(ctx context.Context, l schema.Layout, p Partitioning, o ConvertOptions) error {
	o = o.withDefaults()
	if p.Interval <= 0 {
		return errors.New("convert: the partition interval must be above zero")
	}
	for _, t := range partitionedTables(l) {
		c := &converter{db: db, t: t, p: p, o: o}
		partitioned, err := db.isPartitioned(ctx, t)
		if err == nil && partitioned {
			o.Step(queuebox.ConversionStep{Table: t.raw, Step: "already partitioned", Tries: 1})
			err = c.premake(ctx, time.Time{})
		} else if err == nil {
			err = c.run(ctx)
		}
		if err != nil {
			return fmt.Errorf("convert %s: %w", t.raw, err)
		}
	}
	return nil
}

// converter converts one table.
type converter struct {
	db *DB
	t  partTable
	p  Partitioning
	o  ConvertOptions
}

// The names the conversion gives: the old table as a partition, its
// bound check, and the index that becomes its primary key.
func (c *converter) legacy() string    { return c.t.raw + "_legacy" }
func (c *converter) boundName() string { return c.t.raw + "_partition_bound" }
func (c *converter) pkeyName() string  { return c.t.raw + "_legacy_pkey" }

func (c *converter) run(ctx context.Context) (err error) {
	if err := c.refuseDependents(ctx); err != nil {
		return err
	}
	indexes, err := readIndexes(ctx, c.db.Pool, c.t.quoted)
	if err != nil {
		return err
	}
	for _, b := range c.builds(indexes) {
		if err := c.buildIndex(ctx, b); err != nil {
			return err
		}
	}
	bound, deadline, err := c.addBound(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = c.removeBound(context.WithoutCancel(ctx), err)
		}
	}()
	if err := c.validateBound(ctx); err != nil {
		return err
	}
	if err := c.switchTable(ctx, bound, deadline); err != nil {
		return err
	}
	return c.premake(ctx, bound)
}

// refuseDependents names what depends on the table and would stay with
// the old one after the switch.
func (c *converter) refuseDependents(ctx context.Context) error {
	rows, err := c.db.Pool.Query(ctx, `SELECT DISTINCT what FROM (
		SELECT 'foreign key ' || conname AS what FROM pg_constraint
			WHERE contype = 'f' AND (conrelid = to_regclass($1) OR confrelid = to_regclass($1))
		UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger WHERE tgrelid = to_regclass($1) AND NOT tgisinternal
		UNION ALL SELECT 'view ' || r.ev_class::regclass::text FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
			WHERE d.classid = 'pg_rewrite'::regclass AND d.refobjid = to_regclass($1) AND r.ev_class <> to_regclass($1)
		UNION ALL SELECT 'policy ' || polname FROM pg_policy WHERE polrelid = to_regclass($1)
		UNION ALL SELECT 'inheritance ' || inhrelid::regclass::text || ' of ' || inhparent::regclass::text FROM pg_inherits
			WHERE inhparent = to_regclass($1) OR inhrelid = to_regclass($1)
	) AS d ORDER BY 1`, c.t.quoted)
	if err != nil {
		return fmt.Errorf("read what depends on the table: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("read what depends on the table: %w", err)
	}
	if len(found) > 0 {
		return fmt.Errorf("the table has %s, which would stay with the old table: drop them, convert, and create them again on the partitioned table",
			strings.Join(found, ", "))
	}
	return nil
}

// indexBuild is an index the old table needs before it can be attached.
type indexBuild struct{ name, sql string }

// builds lists the indexes to build on the old table: the unique index
// that becomes its primary key (id, created_at), a plain copy of each
// other unique index, named as the partitioned table's index will be,
// with _legacy after it, and the active index. Indexes of an earlier run are skipped here
// and found built by buildIndex.
func (c *converter) builds(indexes []index) []indexBuild {
	out := []indexBuild{{name: c.pkeyName(),
		sql: "CREATE UNIQUE INDEX CONCURRENTLY " + quoteIdent(c.pkeyName()) + " ON " + c.t.quoted + " (id, " + c.t.createdAt + ")"}}
	for _, ix := range c.own(indexes) {
		if ix.unique && !ix.primary {
			name := legacyIndexName(plainName(ix.name))
			out = append(out, indexBuild{name: name, sql: "CREATE INDEX CONCURRENTLY " + quoteIdent(name) + onClause(ix.def)})
		}
	}
	// The active index is built on the old table under the name the
	// partitioned table's will have: the switch then treats it as one of
	// the table's own indexes, renames it and has its twin adopt it.
	if c.t.activeIndex {
		out = append(out, indexBuild{name: c.t.activeIndexName(), sql: c.t.activeIndexOn(" CONCURRENTLY", c.t.quoted)})
	}
	return out
}

// own leaves out of indexes the ones the conversion builds.
func (c *converter) own(indexes []index) []index {
	var out []index
	for _, ix := range indexes {
		if ix.name != c.pkeyName() && !strings.HasSuffix(ix.name, legacySuffix) {
			out = append(out, ix)
		}
	}
	return out
}

// buildIndex builds one index CONCURRENTLY, under SHARE UPDATE EXCLUSIVE
// (reads and writes go on; it waits for the transactions that started
// before it). An index left invalid by a build that stopped is dropped
// and built again; a valid one is kept.
func (c *converter) buildIndex(ctx context.Context, b indexBuild) error {
	step := queuebox.ConversionStep{Table: c.t.raw, Step: "build index " + b.name + " CONCURRENTLY", Lock: "SHARE UPDATE EXCLUSIVE", Tries: 1}
	var valid bool
	err := c.db.Pool.QueryRow(ctx, `SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)`, quoteIdent(b.name)).Scan(&valid)
	switch {
	case err == nil && valid:
		step.Step = "index " + b.name + " already built"
		step.Lock = ""
		c.o.Step(step)
		return nil
	case err == nil:
		if _, err := c.db.Pool.Exec(ctx, "DROP INDEX CONCURRENTLY "+quoteIdent(b.name)); err != nil {
			return fmt.Errorf("drop the invalid index %s of an earlier try: %w", b.name, err)
		}
	case !errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("read the index %s: %w", b.name, err)
	}
	start := time.Now()
	if _, err := c.db.Pool.Exec(ctx, b.sql); err != nil {
		return fmt.Errorf("%s: %w", b.sql, err)
	}
	step.Held = time.Since(start)
	c.o.Step(step)
	return nil
}

// addBound adds CHECK (created_at < boundary) NOT VALID, replacing the
// check of an earlier try, whose boundary may be near. It returns the
// boundary and the local time by which the switch must be done.
func (c *converter) addBound(ctx context.Context) (bound, deadline time.Time, err error) {
	err = c.blocking(ctx, "add CHECK (created_at < boundary) NOT VALID", time.Time{}, func(tx pgx.Tx) error {
		var now time.Time
		if err := tx.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
			return err
		}
		bound = boundaryAfter(now, c.p.Interval, c.o.Margin)
		deadline = time.Now().Add(bound.Sub(now))
		for _, s := range []string{
			"ALTER TABLE " + c.t.quoted + " DROP CONSTRAINT IF EXISTS " + quoteIdent(c.boundName()),
			"ALTER TABLE " + c.t.quoted + " ADD CONSTRAINT " + quoteIdent(c.boundName()) +
				" CHECK (" + c.t.createdAt + " < " + boundLiteral(bound) + ") NOT VALID",
		} {
			if _, err := tx.Exec(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	return bound, deadline, err
}

// boundaryAfter is the first multiple of interval (from the zero time,
// as the partitions' ranges) at least margin after now.
func boundaryAfter(now time.Time, interval, margin time.Duration) time.Time {
	at := now.UTC().Add(margin)
	b := at.Truncate(interval)
	if b.Before(at) {
		b = b.Add(interval)
	}
	return b
}

// validateBound validates the bound check: one read of the table under
// SHARE UPDATE EXCLUSIVE, which lets reads and writes go on.
func (c *converter) validateBound(ctx context.Context) error {
	start := time.Now()
	if _, err := c.db.Pool.Exec(ctx, "ALTER TABLE "+c.t.quoted+" VALIDATE CONSTRAINT "+quoteIdent(c.boundName())); err != nil {
		return fmt.Errorf("validate the bound check (a row has a %s at or after the boundary: a larger margin moves it): %w", c.t.createdAt, err)
	}
	c.o.Step(queuebox.ConversionStep{Table: c.t.raw, Step: "VALIDATE the check", Lock: "SHARE UPDATE EXCLUSIVE", Held: time.Since(start), Tries: 1})
	return nil
}

// removeBound drops the bound check after a failure before the switch,
// so that the table does not start refusing rows at the boundary. It
// returns cause, with what to do by hand when the check stays.
func (c *converter) removeBound(ctx context.Context, cause error) error {
	drop := "ALTER TABLE " + c.t.quoted + " DROP CONSTRAINT IF EXISTS " + quoteIdent(c.boundName())
	partitioned, err := c.db.isPartitioned(ctx, c.t)
	if err == nil && partitioned {
		return cause // the switch committed; the check went with it
	}
	if err == nil {
		err = c.blocking(ctx, "remove the check", time.Time{}, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, drop)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("%w; and the check %s stays, which refuses rows from its boundary on: run %q before then (%v)", cause, c.boundName(), drop, err)
	}
	return cause
}

// blocking runs fn in a transaction that first locks the table in ACCESS
// EXCLUSIVE mode, waiting at most LockTimeout each try, and tries again
// after a pause while the lock is not granted, o.Tries times at most and,
// when deadline is set, not after it. It reports the step.
func (c *converter) blocking(ctx context.Context, what string, deadline time.Time, fn func(pgx.Tx) error) error {
	step := queuebox.ConversionStep{Table: c.t.raw, Step: what, Lock: "ACCESS EXCLUSIVE", Blocking: true}
	pause := backoff.Doubling{Min: 100 * time.Millisecond, Max: 2 * time.Second}
	for {
		step.Tries++
		var granted time.Time
		start := time.Now()
		err := pgx.BeginFunc(ctx, c.db.Pool, func(tx pgx.Tx) error {
			for _, s := range []string{
				fmt.Sprintf("SET LOCAL lock_timeout = %d", c.o.LockTimeout.Milliseconds()),
				fmt.Sprintf("SET LOCAL statement_timeout = %d", switchStatementTimeout.Milliseconds()),
				"LOCK TABLE " + c.t.quoted + " IN ACCESS EXCLUSIVE MODE",
			} {
				if _, err := tx.Exec(ctx, s); err != nil {
					return err
				}
			}
			granted = time.Now()
			return fn(tx)
		})
		if granted.IsZero() {
			step.Waited += time.Since(start)
		} else {
			step.Waited += granted.Sub(start)
			step.Held = time.Since(granted)
		}
		if err == nil {
			c.o.Step(step)
			return nil
		}
		var pgErr *pgconn.PgError
		wait := pause.Next()
		late := !deadline.IsZero() && time.Now().Add(c.o.LockTimeout+wait).After(deadline)
		if !errors.As(err, &pgErr) || pgErr.Code != "55P03" || step.Tries >= c.o.Tries || late {
			return fmt.Errorf("%s (try %d): %w", what, step.Tries, err)
		}
		if !backoff.Sleep(ctx, wait) {
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
	}
}

// premake creates the partitions from bound on (from the last partition
// on when bound is zero), premake ahead, as the roles' maintenance does.
func (c *converter) premake(ctx context.Context, bound time.Time) error {
	start := time.Now()
	created, err := c.db.ensureTablePartitions(ctx, c.t, c.p, bound, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	c.o.Step(queuebox.ConversionStep{Table: c.t.raw, Step: fmt.Sprintf("create %d partitions ahead", len(created)),
		Lock: "SHARE UPDATE EXCLUSIVE", Held: time.Since(start), Tries: 1})
	return nil
}
