// Package store picks the store set of the configured database.type: the
// one place that knows which dialects exist. Every role asks the set it
// returns for its stores, so no wiring names a dialect.
package store

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/sqlserver"
)

// Options are what every dialect needs besides the database block.
type Options struct {
	// PoolName is the pool label of the connection pool metrics.
	PoolName   string
	Registerer prometheus.Registerer
	Logger     *slog.Logger
	// StartupSetting names what bounds the wait for the database in the
	// error of a start that ran out of time: empty for
	// database.startupTimeoutMs, a flag such as --wait for a command
	// that sets the bound itself.
	StartupSetting string
	// Ledger is outbox.ledger.enabled: the outbox's outcome write records
	// each attempt in the delivery ledger. A set opened for anything but
	// delivery (the CLI) may leave it false; the ledger is still read.
	Ledger bool
}

// layout is the table layout of the database block in dialect d, with the
// ledger's writes as opts asks.
func layout(d schema.Dialect, cfg config.Database, opts Options) schema.Layout {
	l := schema.New(d, Names(cfg))
	if !opts.Ledger {
		l = l.WithoutLedger()
	}
	return l
}

// Open connects to the database of cfg.Type, migrates it when
// database.migrate is true and checks the schema, retrying the first
// connection up to database.startupTimeoutMs; a login or database the
// server refuses ends the wait at once. The caller closes the set.
func Open(ctx context.Context, cfg config.Database, opts Options) (queuebox.Stores, error) {
	switch cfg.Type {
	case config.DatabaseSQLServer:
		msOpts, err := sqlServerOptions(cfg, opts)
		if err != nil {
			return nil, err
		}
		stores, err := sqlserver.OpenStores(ctx, msOpts)
		if err != nil {
			return nil, err
		}
		return stores, nil
	default:
		pgOpts, err := postgresOptions(cfg, opts)
		if err != nil {
			return nil, err
		}
		return postgres.OpenStores(ctx, pgOpts)
	}
}

// postgresOptions maps the database block onto the options of the
// PostgreSQL store set.
func postgresOptions(cfg config.Database, opts Options) (postgres.StoresOptions, error) {
	url, err := config.ParseDatabaseURL(cfg.URL)
	if err != nil {
		return postgres.StoresOptions{}, fmt.Errorf("database.url (QUEUEBOX_DATABASE_URL): %w", err)
	}
	return postgres.StoresOptions{
		Options: postgres.Options{
			ConnString:     PostgresConnString(url, cfg.Username, cfg.Password),
			DisplayURL:     url.Masked(),
			PoolSize:       cfg.PoolSize,
			AcquireTimeout: config.Ms(cfg.ConnectionTimeoutMs),
			StartupTimeout: config.Ms(cfg.StartupTimeoutMs),
			StartupSetting: opts.StartupSetting,
			PoolName:       opts.PoolName,
			Registerer:     opts.Registerer,
			Logger:         opts.Logger,
		},
		Layout:  layout(schema.Postgres, cfg, opts),
		Migrate: cfg.Migrate,
		Partitioning: postgres.Partitioning{
			Enabled: cfg.Partitioning.Enabled, Interval: cfg.Partitioning.Interval.D, Premake: cfg.Partitioning.Premake,
		},
	}, nil
}

// sqlServerOptions maps the database block onto the options of the SQL
// Server store set. encrypt and trustServerCertificate of database.url
// reach the go-mssqldb connection string (sqlserver.ConnParams).
func sqlServerOptions(cfg config.Database, opts Options) (sqlserver.StoresOptions, error) {
	url, err := config.ParseDatabaseURL(cfg.URL)
	if err != nil {
		return sqlserver.StoresOptions{}, fmt.Errorf("database.url (QUEUEBOX_DATABASE_URL): %w", err)
	}
	return sqlserver.StoresOptions{
		Options: sqlserver.Options{
			ConnString:     sqlServerConnString(url, cfg.Username, cfg.Password),
			DisplayURL:     url.Masked(),
			PoolSize:       cfg.PoolSize,
			AcquireTimeout: config.Ms(cfg.ConnectionTimeoutMs),
			StartupTimeout: config.Ms(cfg.StartupTimeoutMs),
			StartupSetting: opts.StartupSetting,
			Logger:         opts.Logger,
		},
		Layout:  layout(schema.SQLServer, cfg, opts),
		Migrate: cfg.Migrate,
	}, nil
}

// OpenDiagnostics connects to the database of cfg.Type for `queuebox
// doctor` and `queuebox migrate status`: the pool alone, retried up to
// database.startupTimeoutMs, without migrating and without the schema
// guard, so a database that is behind can still be read. The caller
// closes it.
func OpenDiagnostics(ctx context.Context, cfg config.Database, opts Options) (queuebox.Diagnostics, error) {
	switch cfg.Type {
	case config.DatabaseSQLServer:
		msOpts, err := sqlServerOptions(cfg, opts)
		if err != nil {
			return nil, err
		}
		db, err := sqlserver.Open(ctx, msOpts.Options)
		if err != nil {
			return nil, err
		}
		d, err := sqlserver.NewDiagnostics(db, msOpts.Layout)
		if err != nil {
			db.Close()
			return nil, err
		}
		return d, nil
	default:
		pgOpts, err := postgresOptions(cfg, opts)
		if err != nil {
			return nil, err
		}
		db, err := postgres.Open(ctx, pgOpts.Options)
		if err != nil {
			return nil, err
		}
		d, err := postgres.NewDiagnostics(db, pgOpts.Layout)
		if err != nil {
			db.Close()
			return nil, err
		}
		return d, nil
	}
}
