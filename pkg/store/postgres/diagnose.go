package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/migrate"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
)

// Diagnostics reads what `queuebox doctor` and `queuebox migrate status`
// judge; it implements queuebox.Diagnostics and changes nothing. It owns
// its DB: Close closes the pool.
type Diagnostics struct {
	db *DB
	l  schema.Layout

	outboxPending, inboxPending, outboxDead, inboxDead string
	tables, oldestTx, connections, capture             string
}

var _ queuebox.Diagnostics = (*Diagnostics)(nil)

// NewDiagnostics renders the statements for the layout. It runs no schema
// guard, so a database that misses migrations can still be read.
func NewDiagnostics(db *DB, l schema.Layout) (*Diagnostics, error) {
	d := &Diagnostics{db: db, l: l}
	err := renderAll(l, map[*string]string{
		&d.outboxPending: "outbox_pending_stats", &d.inboxPending: "diagnose_inbox_pending",
		&d.outboxDead: "diagnose_outbox_dead", &d.inboxDead: "diagnose_inbox_dead",
		&d.tables: "diagnose_tables", &d.oldestTx: "diagnose_oldest_transaction",
		&d.connections: "diagnose_connections", &d.capture: "diagnose_capture",
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Dialect implements queuebox.Diagnostics.
func (d *Diagnostics) Dialect() string { return "postgres" }

// Ping implements queuebox.Diagnostics.
func (d *Diagnostics) Ping(ctx context.Context) error { return d.db.Ping(ctx) }

// Close implements queuebox.Diagnostics.
func (d *Diagnostics) Close() { d.db.Close() }

// Migrations implements queuebox.Diagnostics. A schema without the
// history table has every bundled version pending.
func (d *Diagnostics) Migrations(ctx context.Context) ([]queuebox.MigrationStatus, error) {
	known, err := migrate.Load("postgres")
	if err != nil {
		return nil, err
	}
	var history []migrate.Applied
	err = d.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		var exists bool
		if err := conn.QueryRow(ctx, historyExistsSQL).Scan(&exists); err != nil || !exists {
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
		// perDestination: the statement returns (topic, destination, count,
		// age) rows (the pending ones come from the gauges'
		// outbox_pending_stats).
		perDestination bool
	}{
		{"pending outbox rows", d.outboxPending, &b.PendingByTopic, true},
		{"pending inbox rows", d.inboxPending, &b.PendingBySource, false},
		{"dead outbox rows", d.outboxDead, &b.DeadByTopic, true},
		{"dead inbox rows", d.inboxDead, &b.DeadBySource, false},
	} {
		groups, err := d.groups(ctx, q.stmt, q.perDestination)
		if err != nil {
			return b, fmt.Errorf("count the %s: %w", q.what, err)
		}
		*q.dst = groups
	}
	return b, nil
}

// groups runs a statement of (name, count, age in seconds) rows, or of
// (name, destination, count, age) rows when perDestination is set, and
// sums the rows of one name and destination.
func (d *Diagnostics) groups(ctx context.Context, stmt string, perDestination bool) ([]queuebox.Group, error) {
	var out []queuebox.Group
	err := d.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, stmt)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (queuebox.Group, error) {
			var g queuebox.Group
			var age float64
			dst := []any{&g.Name, &g.Count, &age}
			if perDestination {
				dst = []any{&g.Name, &g.Destination, &g.Count, &age}
			}
			err := row.Scan(dst...)
			g.OldestAge = seconds(age)
			return g, err
		})
		return err
	})
	return rowcodec.FoldGroups(out), err
}

// Tables implements queuebox.Diagnostics: the outbox first, then the
// inbox; a table the statistics do not list yet is left out.
func (d *Diagnostics) Tables(ctx context.Context) ([]queuebox.TableHealth, error) {
	var out []queuebox.TableHealth
	err := d.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, d.tables, d.l.O.Table, d.l.I.Table)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (queuebox.TableHealth, error) {
			var t queuebox.TableHealth
			var outbox bool
			err := row.Scan(&outbox, &t.LiveRows, &t.DeadRows, &t.LastAutovacuum, &t.AutovacuumOn)
			t.Table = d.l.I.Table
			if outbox {
				t.Table = d.l.O.Table
			}
			return t, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the table statistics: %w", err)
	}
	if len(out) == 2 && out[0].Table != d.l.O.Table {
		out[0], out[1] = out[1], out[0]
	}
	return out, nil
}

// OldestTransaction implements queuebox.Diagnostics.
func (d *Diagnostics) OldestTransaction(ctx context.Context) (queuebox.OpenTransaction, bool, error) {
	var tx queuebox.OpenTransaction
	err := d.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		var age float64
		err := conn.QueryRow(ctx, d.oldestTx).Scan(&tx.PID, &age, &tx.State, &tx.Query)
		tx.Age = seconds(age)
		return err
	})
	if errors.Is(err, errNotFound) {
		return tx, false, nil
	}
	if err != nil {
		return tx, false, fmt.Errorf("read the open transactions: %w", err)
	}
	return tx, true, nil
}

// Connections implements queuebox.Diagnostics.
func (d *Diagnostics) Connections(ctx context.Context) (queuebox.Connections, error) {
	var c queuebox.Connections
	err := d.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, d.connections).Scan(&c.Max, &c.Reserved, &c.Open)
	})
	if err != nil {
		return c, fmt.Errorf("read max_connections: %w", err)
	}
	return c, nil
}

// Capture implements queuebox.Diagnostics.
func (d *Diagnostics) Capture(ctx context.Context, slot string) (queuebox.CaptureHealth, error) {
	var c queuebox.CaptureHealth
	err := d.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, d.capture, slot).Scan(&c.WALLevel, &c.SlotExists, &c.SlotActive, &c.RetainedBytes)
	})
	if err != nil {
		return c, fmt.Errorf("read wal_level and the replication slot %q: %w", slot, err)
	}
	return c, nil
}

// seconds converts a database age in seconds to a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
