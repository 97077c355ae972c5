package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/alternayte/queuebox/pkg/schema"
)

// partition is one partition of a table. A default partition has zero
// bounds.
type partition struct {
	name      string
	from, to  time.Time
	isDefault bool
}

// listPartitionsSQL reads the partitions of a table with their bounds.
// The bounds come back as text from pg_get_expr and are cast back in the
// same session, so the time zone that wrote them reads them.
const listPartitionsSQL = `SELECT c.relname,
	COALESCE((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']*)''\)'))[1]::timestamptz, 'epoch'),
	COALESCE((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']*)''\)'))[1]::timestamptz, 'epoch'),
	pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT'
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = to_regclass($1)
ORDER BY 2, 1`

// querier is a pool, a connection or a transaction, for the catalog reads
// of partitioning.
type querier interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}

func listPartitions(ctx context.Context, q querier, quoted string) ([]partition, error) {
	rows, err := q.Query(ctx, listPartitionsSQL, quoted)
	if err != nil {
		return nil, fmt.Errorf("list the partitions of %s: %w", quoted, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (partition, error) {
		var p partition
		err := r.Scan(&p.name, &p.from, &p.to, &p.isDefault)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("list the partitions of %s: %w", quoted, err)
	}
	return out, nil
}

// missingRanges returns the ranges of interval to create so that the
// partitions cover the one of now and premake more. Ranges start on a
// multiple of interval (from the zero time, so a day starts at midnight
// UTC); they continue after the last partition when it reaches past now,
// so a changed interval neither overlaps nor leaves a gap.
func missingRanges(existing []partition, now time.Time, interval time.Duration, premake int) [][2]time.Time {
	start := now.UTC().Truncate(interval)
	end := start.Add(time.Duration(premake+1) * interval)
	var last time.Time
	for _, p := range existing {
		if !p.isDefault && p.to.After(last) {
			last = p.to
		}
	}
	if last.After(start) {
		start = last
	}
	var out [][2]time.Time
	for from := start; from.Before(end); from = from.Add(interval) {
		out = append(out, [2]time.Time{from, from.Add(interval)})
	}
	return out
}

// partitionName is the name of the partition of table that starts at
// from: the table name and the start in UTC, minute precision.
func partitionName(table string, from time.Time) string {
	return table + "_p" + from.UTC().Format("20060102_1504")
}

// boundLiteral writes a bound as a SQL literal. It holds digits and
// punctuation only, so it is safe in DDL, which takes no parameters.
func boundLiteral(t time.Time) string {
	return "'" + t.UTC().Format("2006-01-02 15:04:05") + "+00'"
}

// ensurePartitions creates, for both tables, the partitions missing from
// the one of now (the database clock when now is zero) to p.Premake
// ahead. It returns the names it created. A range whose rows already sit
// in the default partition is skipped with a warning: attaching it would
// fail, and those rows stay readable where they are.
func (db *DB) ensurePartitions(ctx context.Context, l schema.Layout, p Partitioning, now time.Time, log *slog.Logger) ([]string, error) {
	var created []string
	for _, t := range partitionedTables(l) {
		names, err := db.ensureTablePartitions(ctx, t, p, now, log)
		created = append(created, names...)
		if err != nil {
			return created, err
		}
	}
	return created, nil
}

func (db *DB) ensureTablePartitions(ctx context.Context, t partTable, p Partitioning, now time.Time, log *slog.Logger) ([]string, error) {
	// A table left unpartitioned (it held rows) is the start's to refuse.
	if partitioned, err := db.isPartitioned(ctx, t); err != nil || !partitioned {
		return nil, err
	}
	if now.IsZero() {
		if err := db.Pool.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
			return nil, fmt.Errorf("read the database clock: %w", err)
		}
	}
	existing, err := listPartitions(ctx, db.Pool, t.quoted)
	if err != nil {
		return nil, err
	}
	defaultName := ""
	for _, e := range existing {
		if e.isDefault {
			defaultName = e.name
		}
	}
	var created []string
	for _, r := range missingRanges(existing, now, p.Interval, p.Premake) {
		name, ok, err := db.attachPartition(ctx, t, defaultName, r[0], r[1])
		switch {
		case err != nil:
			return created, err
		case !ok:
			log.Warn("partition: rows of this range sit in the default partition, so it is not created; move them out (docs/partitions.md)",
				"table", t.raw, "from", r[0], "to", r[1])
		default:
			created = append(created, name)
		}
	}
	sort.Strings(created)
	return created, nil
}

// attachPartition creates the partition [from, to) of t as a table of its
// own and attaches it, which locks the parent in SHARE UPDATE EXCLUSIVE
// mode only (CREATE TABLE ... PARTITION OF would lock out every reader
// and writer of the table). Attaching scans the default partition, under
// an ACCESS EXCLUSIVE lock on it, for rows of the range: it is empty in
// the normal course. ok is false when it holds rows of the range. The
// default partition is found by the catalog, whatever its name (one that
// pg_partman made, for instance); defaultName is empty when there is none.
func (db *DB) attachPartition(ctx context.Context, t partTable, defaultName string, from, to time.Time) (name string, ok bool, err error) {
	name = partitionName(t.raw, from)
	err = pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '"+partitionLockTimeout+"'"); err != nil {
			return err
		}
		if defaultName != "" {
			var inDefault bool
			err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+quoteIdent(defaultName)+
				` WHERE `+t.createdAt+` >= $1 AND `+t.createdAt+` < $2)`, from, to).Scan(&inDefault)
			if err != nil || inDefault {
				return err
			}
		}
		ok = true
		for _, s := range []string{
			"CREATE TABLE " + quoteIdent(name) + " (LIKE " + t.quoted + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)",
			"ALTER TABLE " + t.quoted + " ATTACH PARTITION " + quoteIdent(name) +
				" FOR VALUES FROM (" + boundLiteral(from) + ") TO (" + boundLiteral(to) + ")",
		} {
			if _, err := tx.Exec(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return name, false, fmt.Errorf("create the partition %s of %s: %w", name, t.raw, err)
	}
	return name, ok, nil
}
