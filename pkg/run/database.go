package run

import (
	"context"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// openDatabase connects (retrying up to database.startupTimeoutMs),
// migrates when database.migrate is true, and runs the schema guard.
func openDatabase(ctx context.Context, app *App) error {
	db := app.Config.Database
	if db.Type == config.DatabaseSQLServer {
		return errUnsupportedDatabase
	}
	url, err := config.ParseDatabaseURL(db.URL)
	if err != nil {
		return fmt.Errorf("database.url (QUEUEBOX_DATABASE_URL): %w", err)
	}
	pool, err := postgres.Open(ctx, postgres.Options{
		ConnString:     url.PgxConnString(db.Username, db.Password),
		DisplayURL:     url.Masked(),
		PoolSize:       db.PoolSize,
		AcquireTimeout: config.Ms(db.ConnectionTimeoutMs),
		StartupTimeout: config.Ms(db.StartupTimeoutMs),
		PoolName:       "queuebox",
		Registerer:     app.Registry,
		Logger:         app.Log,
	})
	if err != nil {
		return err
	}
	app.DB = pool
	app.Layout = schema.New(schema.Postgres, db)
	if db.Migrate {
		start := time.Now()
		applied, err := pool.Migrate(ctx, app.Log)
		if err != nil {
			pool.Close()
			return err
		}
		app.Log.Info("schema up to date", "applied", applied, "took_ms", time.Since(start).Milliseconds())
	}
	if err := pool.CheckSchema(ctx, app.Layout,
		"database.columnMapping.inbox.headers", "database.columnMapping.outbox.sequence"); err != nil {
		pool.Close()
		return err
	}
	return nil
}
