package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// ConvertOptions tune ConvertPartitioned; zero values take the defaults
// of the dialect.
type ConvertOptions struct {
	// Margin is the least time from the bound check to the boundary
	// below which the old table keeps every row (1 h by default).
	Margin time.Duration
	// LockTimeout bounds each wait for a lock that stops the table's
	// readers and writers (2 s by default); a wait that times out is
	// tried again.
	LockTimeout time.Duration
	// Step receives each step as it ends; nil drops them.
	Step func(queuebox.ConversionStep)
}

// ConvertPartitioned makes the existing outbox and inbox of the
// configured database, populated and unpartitioned, partitioned by
// created_at as database.partitioning asks, in place and while
// applications and roles go on (`queuebox migrate partition`). It is
// PostgreSQL only and refuses a configuration whose
// database.partitioning.enabled is false, and a database with migrations
// left to apply. Tables already partitioned are left as they are. It
// opens and closes a pool of its own; ctx cancels the step that runs.
func ConvertPartitioned(ctx context.Context, cfg config.Database, opts Options, conv ConvertOptions) error {
	if cfg.Type == config.DatabaseSQLServer {
		return errors.New("database.type (QUEUEBOX_DATABASE_TYPE) is sqlserver: the conversion to partitioned tables is written for PostgreSQL only (docs/partitions.md)")
	}
	if !cfg.Partitioning.Enabled {
		return errors.New("database.partitioning.enabled (QUEUEBOX_DATABASE_PARTITIONING_ENABLED) is false: set it to true, as the roles will run after the conversion, so that the conversion knows the interval and premake")
	}
	pgOpts, err := postgresOptions(cfg, opts)
	if err != nil {
		return err
	}
	db, err := postgres.Open(ctx, pgOpts.Options)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := refusePending(ctx, db, pgOpts); err != nil {
		return err
	}
	return db.ConvertPopulated(ctx, pgOpts.Layout, pgOpts.Partitioning, postgres.ConvertOptions{
		Margin: conv.Margin, LockTimeout: conv.LockTimeout, Step: conv.Step,
	})
}

// refusePending stops the conversion of a database whose schema is
// behind: the conversion copies the tables as they are, and the
// migrations are written for them as they will be.
func refusePending(ctx context.Context, db *postgres.DB, o postgres.StoresOptions) error {
	d, err := postgres.NewDiagnostics(db, o.Layout)
	if err != nil {
		return err
	}
	status, err := d.Migrations(ctx)
	if err != nil {
		return err
	}
	for _, s := range status {
		if s.State != queuebox.MigrationApplied && s.State != queuebox.MigrationUnknown {
			return fmt.Errorf("migration V%d is %s: apply the migrations first (queuebox migrate), then convert", s.Version, s.State)
		}
	}
	return nil
}
