package sqlserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/migrate"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
)

// historyExistsSQL says whether this database has the history table.
const historyExistsSQL = `SELECT CASE WHEN OBJECT_ID(N'flyway_schema_history', N'U') IS NULL THEN 0 ELSE 1 END`

// Diagnostics reads what `queuebox doctor` and `queuebox migrate status`
// judge on SQL Server; it implements queuebox.Diagnostics and changes
// nothing. It owns its DB: Close closes the pool.
//
// Two readings have no SQL Server equivalent and return
// queuebox.ErrNotSupported: Tables, because SQL Server has no autovacuum
// and no per-table dead tuple count (a deleted row becomes a ghost record
// that the server's ghost cleanup task removes on its own, and counting
// them needs a scan of the whole index through
// sys.dm_db_index_physical_stats); and Capture, whose checks (wal_level,
// the replication slot) are PostgreSQL's; CDC's own state is not read yet.
type Diagnostics struct {
	db *DB
	l  schema.Layout

	outboxPending, inboxPending, outboxDead, inboxDead string
	oldestTx, connections                              string
}

var _ queuebox.Diagnostics = (*Diagnostics)(nil)

// NewDiagnostics renders the statements for the layout. It runs no schema
// guard, so a database that misses migrations can still be read.
func NewDiagnostics(db *DB, l schema.Layout) (*Diagnostics, error) {
	d := &Diagnostics{db: db, l: l}
	err := renderAll(l, map[*string]string{
		&d.outboxPending: "outbox_pending_stats", &d.inboxPending: "diagnose_inbox_pending",
		&d.outboxDead: "diagnose_outbox_dead", &d.inboxDead: "diagnose_inbox_dead",
		&d.oldestTx: "diagnose_oldest_transaction", &d.connections: "diagnose_connections",
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Dialect implements queuebox.Diagnostics.
func (d *Diagnostics) Dialect() string { return "sqlserver" }

// Ping implements queuebox.Diagnostics.
func (d *Diagnostics) Ping(ctx context.Context) error { return d.db.Ping(ctx) }

// Close implements queuebox.Diagnostics.
func (d *Diagnostics) Close() { d.db.Close() }

// Migrations implements queuebox.Diagnostics. A database without the
// history table has every bundled version pending.
func (d *Diagnostics) Migrations(ctx context.Context) ([]queuebox.MigrationStatus, error) {
	known, err := migrate.Load("sqlserver")
	if err != nil {
		return nil, err
	}
	var history []migrate.Applied
	err = d.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		var exists int
		if err := conn.QueryRowContext(ctx, historyExistsSQL).Scan(&exists); err != nil || exists == 0 {
			return err
		}
		history, _, err = readHistory(ctx, conn)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the migration history: %w", err)
	}
	return migrate.Status(known, history), nil
}

// MissingIndexes implements queuebox.Diagnostics.
func (d *Diagnostics) MissingIndexes(ctx context.Context) ([]string, error) {
	return d.db.IndexWarnings(ctx, d.l)
}

// Backlog implements queuebox.Diagnostics.
func (d *Diagnostics) Backlog(ctx context.Context) (queuebox.Backlog, error) {
	var b queuebox.Backlog
	for _, q := range []struct {
		what, stmt string
		dst        *[]queuebox.Group
		scan       func(*sql.Rows) (queuebox.Group, error)
	}{
		// The pending outbox rows come from the gauges' outbox_pending_stats,
		// per topic and destination.
		{"pending outbox rows", d.outboxPending, &b.PendingByTopic, scanDestinationGroup},
		{"pending inbox rows", d.inboxPending, &b.PendingBySource, scanGroup},
		{"dead outbox rows", d.outboxDead, &b.DeadByTopic, scanDestinationGroup},
		{"dead inbox rows", d.inboxDead, &b.DeadBySource, scanGroup},
	} {
		err := d.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
			rows, err := conn.QueryContext(ctx, q.stmt)
			if err != nil {
				return err
			}
			groups, err := collect(rows, q.scan)
			*q.dst = rowcodec.FoldGroups(groups)
			return err
		})
		if err != nil {
			return b, fmt.Errorf("count the %s: %w", q.what, err)
		}
	}
	return b, nil
}

// scanDestinationGroup reads one (name, destination, count, age in
// seconds) row.
func scanDestinationGroup(rows *sql.Rows) (queuebox.Group, error) {
	var g queuebox.Group
	var age float64
	err := rows.Scan(&g.Name, &g.Destination, &g.Count, &age)
	g.OldestAge = time.Duration(age * float64(time.Second))
	return g, err
}

// scanGroup reads one (name, count, age in seconds) row.
func scanGroup(rows *sql.Rows) (queuebox.Group, error) {
	var g queuebox.Group
	var age float64
	err := rows.Scan(&g.Name, &g.Count, &age)
	g.OldestAge = time.Duration(age * float64(time.Second))
	return g, err
}

// Tables implements queuebox.Diagnostics; see the type's comment.
func (d *Diagnostics) Tables(context.Context) ([]queuebox.TableHealth, error) {
	return nil, fmt.Errorf("dead tuples and autovacuum: SQL Server has neither; its ghost cleanup removes deleted rows on its own: %w", queuebox.ErrNotSupported)
}

// OldestTransaction implements queuebox.Diagnostics.
func (d *Diagnostics) OldestTransaction(ctx context.Context) (queuebox.OpenTransaction, bool, error) {
	var tx queuebox.OpenTransaction
	err := d.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		var age float64
		err := conn.QueryRowContext(ctx, d.oldestTx).Scan(&tx.PID, &age, &tx.State, &tx.Query)
		tx.Age = time.Duration(age * float64(time.Second))
		return err
	})
	if errors.Is(err, errNotFound) {
		return tx, false, nil
	}
	if err != nil {
		return tx, false, fmt.Errorf("read the open transactions (needs VIEW SERVER STATE): %w", err)
	}
	return tx, true, nil
}

// Connections implements queuebox.Diagnostics.
func (d *Diagnostics) Connections(ctx context.Context) (queuebox.Connections, error) {
	var c queuebox.Connections
	err := d.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, d.connections).Scan(&c.Max, &c.Reserved, &c.Open)
	})
	if err != nil {
		return c, fmt.Errorf("read @@MAX_CONNECTIONS: %w", err)
	}
	return c, nil
}

// Capture implements queuebox.Diagnostics; see the type's comment.
func (d *Diagnostics) Capture(context.Context, string) (queuebox.CaptureHealth, error) {
	return queuebox.CaptureHealth{}, fmt.Errorf("wal_level and replication slots are PostgreSQL's; the CDC state is not read: %w", queuebox.ErrNotSupported)
}
