// Package startup is the start of a store set that both dialects share:
// migrate when asked, then the schema guard and its index warnings.
package startup

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/schema"
)

// Schema is what a dialect's pool offers the start.
type Schema interface {
	// Migrate applies the bundled migrations and returns their versions.
	Migrate(ctx context.Context, log *slog.Logger) ([]int, error)
	// CheckSchema stops the start when a table or a required column is
	// missing, naming the configuration key of each missing column, and
	// returns what the outbox lacks for lanes (empty when it has their
	// columns), each with the statements that add it.
	CheckSchema(ctx context.Context, l schema.Layout, keys Keys) (laneGaps []string, err error)
	// IndexWarnings names the indexes of the relay claim that are missing.
	IndexWarnings(ctx context.Context, l schema.Layout) ([]string, error)
	// HasTable reports whether the quoted table exists.
	HasTable(ctx context.Context, quotedTable string) (bool, error)
}

// Keys are the configuration keys of the columns that later releases
// added and that the schema guard checks on a custom table; its message
// names the key of each missing column.
type Keys struct {
	InboxHeaders, OutboxSequence, OutboxDestination, OutboxOriginID string
}

// ColumnKeys are the keys of the configuration file (24_Configuration.md).
var ColumnKeys = Keys{
	InboxHeaders:      "database.columnMapping.inbox.headers",
	OutboxSequence:    "database.columnMapping.outbox.sequence",
	OutboxDestination: "database.columnMapping.outbox.destination",
	OutboxOriginID:    "database.columnMapping.outbox.originId",
}

// Prepare migrates db when migrate is true, runs the schema guard for l
// and logs each index warning to log (nil logs nothing). It returns l,
// with lanes off when the outbox lacks their columns (a custom table made
// before them), which it logs with the statements that turn them on, and
// with the delivery ledger off when its table is missing (see ledger).
func Prepare(ctx context.Context, db Schema, l schema.Layout, migrate bool, log *slog.Logger) (schema.Layout, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if migrate {
		start := time.Now()
		applied, err := db.Migrate(ctx, log)
		if err != nil {
			return l, err
		}
		log.Info("schema up to date", "applied", applied, "took_ms", time.Since(start).Milliseconds())
	}
	laneGaps, err := db.CheckSchema(ctx, l, ColumnKeys)
	if err != nil {
		return l, err
	}
	if len(laneGaps) > 0 {
		l.O.Lanes = false
		log.Warn("schema: the outbox runs in key order (the rows of a key keep one order across all destinations, and a route with several destinations is refused) until it has the lane columns",
			"warning", strings.Join(laneGaps, " "))
	}
	if l, err = ledger(ctx, db, l, log); err != nil {
		return l, err
	}
	if l.Requeues != "" {
		ok, err := db.HasTable(ctx, l.Requeues)
		if err != nil {
			return l, err
		}
		if !ok {
			// Only a cost: without the counts the claims keep no hints and
			// walk each lane from its start, as before V18.
			log.Info("schema: the claims keep no lane hints until the requeue counts table exists; apply migration V18 (queuebox migrate, or database.migrate: true) and restart",
				"table", l.Requeues)
			l.Requeues = ""
		}
	}
	warnings, err := db.IndexWarnings(ctx, l)
	if err != nil {
		return l, err
	}
	for _, w := range warnings {
		log.Warn("schema", "warning", w)
	}
	return l, nil
}

// ledger turns the delivery ledger off when the database has no table
// for it: a database that database.migrate false keeps behind V17. The
// ledger is a record for operators, not part of delivery, so a missing
// table stops no start, whatever outbox.ledger.enabled says: deliver runs
// as before V17, and the line below says so once, when writes were
// wanted, with what turns the ledger on.
func ledger(ctx context.Context, db Schema, l schema.Layout, log *slog.Logger) (schema.Layout, error) {
	if l.Ledger.Table == "" {
		return l, nil
	}
	ok, err := db.HasTable(ctx, l.Ledger.Table)
	if err != nil || ok {
		return l, err
	}
	if l.Ledger.Write {
		log.Warn("schema: the delivery ledger is off until its table exists; deliver runs without it. Apply migration V17 (queuebox migrate, or database.migrate: true) and restart, or set outbox.ledger.enabled: false to silence this",
			"table", l.Ledger.Table)
	}
	l.Ledger = schema.Ledger{}
	return l, nil
}
