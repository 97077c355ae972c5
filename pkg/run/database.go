package run

import (
	"context"

	"github.com/alternayte/queuebox/pkg/store"
)

// openDatabase opens the store set of database.type (connect, migrate,
// schema guard) and puts it on app.
func openDatabase(ctx context.Context, app *App) error {
	stores, err := store.Open(ctx, app.Config.Database, store.Options{
		PoolName: "queuebox", Registerer: app.Registry, Logger: app.Log, Ledger: app.Config.Outbox.Ledger.Enabled,
	})
	if err != nil {
		return err
	}
	app.Stores = stores
	return nil
}
