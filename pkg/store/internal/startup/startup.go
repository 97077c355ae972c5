// Package startup is the start of a store set that both dialects share:
// migrate when asked, then the schema guard and its index warnings.
package startup

import (
	"context"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/schema"
)

// Schema is what a dialect's pool offers the start.
type Schema interface {
	// Migrate applies the bundled migrations and returns their versions.
	Migrate(ctx context.Context, log *slog.Logger) ([]int, error)
	// CheckSchema stops the start when a table or a checked column is
	// missing, naming the configuration key of each missing column.
	CheckSchema(ctx context.Context, l schema.Layout, keys Keys) error
	// IndexWarnings names the indexes of the relay claim that are missing.
	IndexWarnings(ctx context.Context, l schema.Layout) ([]string, error)
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
// and logs each index warning to log (nil logs nothing).
func Prepare(ctx context.Context, db Schema, l schema.Layout, migrate bool, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if migrate {
		start := time.Now()
		applied, err := db.Migrate(ctx, log)
		if err != nil {
			return err
		}
		log.Info("schema up to date", "applied", applied, "took_ms", time.Since(start).Milliseconds())
	}
	if err := db.CheckSchema(ctx, l, ColumnKeys); err != nil {
		return err
	}
	warnings, err := db.IndexWarnings(ctx, l)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		log.Warn("schema", "warning", w)
	}
	return nil
}
