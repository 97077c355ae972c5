package capturerole

import (
	"context"
	"errors"

	"github.com/alternayte/queuebox/pkg/capture"
	cappg "github.com/alternayte/queuebox/pkg/capture/postgres"
	capsql "github.com/alternayte/queuebox/pkg/capture/sqlserver"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

// errNoCaptureStore is what the advisory component reports when the store
// set of database.type cannot run the connector of outbox.capture.mode
// (config validation pairs the two, so only a test or a foreign set
// meets it).
var errNoCaptureStore = errors.New("the store set of database.type cannot run the capture connector of outbox.capture.mode; delivery continues through polling")

// Role is the capture role: the change-data-capture connector, only when
// outbox.capture.enabled is true (one owner per database).
var Role = wiring.Role{Name: "capture", Runs: "the outbox capture connector (outbox.capture.enabled)", Wire: wire}

// connector is the component either mode runs, with its health check.
type connector interface {
	run.Component
	Check(context.Context) error
}

// wire adds the connector of outbox.capture.mode when
// outbox.capture.enabled is true. Its outbox-capture component is
// advisory: a capture fault shows in the readiness body and never makes
// the instance unready.
func wire(_ context.Context, app *run.App) ([]run.Component, error) {
	c := app.Config.Outbox.Capture
	if !c.Enabled {
		return nil, nil
	}
	settings, err := captureSettings(app.Config)
	if err != nil {
		return nil, err
	}
	var conn connector
	var ok bool
	switch c.Mode {
	case config.CaptureSQLServerCDC:
		conn, ok, err = sqlServerConnector(app, settings)
	default:
		conn, ok, err = postgresConnector(app, settings)
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		app.Health.AddAdvisory("outbox-capture", func(context.Context) error { return errNoCaptureStore })
		app.Log.Warn("capture is not started", "mode", c.Mode, "err", errNoCaptureStore)
		return nil, nil
	}
	app.Health.AddAdvisory("outbox-capture", conn.Check)
	return []run.Component{conn}, nil
}

// postgresConnector builds postgres-logical; ok is false when the store
// set is not PostgreSQL's.
func postgresConnector(app *run.App, settings capture.Settings) (connector, bool, error) {
	db, ok := app.Stores.(cappg.Database)
	if !ok {
		return nil, false, nil
	}
	c, err := cappg.New(cappg.Options{
		Settings: settings, Database: db, Metrics: capture.NewMetrics(app.Registry),
		Logger: app.Log.With("component", "outbox-capture"),
	})
	return c, err == nil, err
}

// sqlServerConnector builds sqlserver-cdc; ok is false when the store
// set is not SQL Server's. Slot and publication mean nothing there, so
// they are left out of the settings (and of the fingerprint's meaning).
func sqlServerConnector(app *run.App, settings capture.Settings) (connector, bool, error) {
	db, ok := app.Stores.(capsql.Database)
	if !ok {
		return nil, false, nil
	}
	locker, err := capsql.NewSQLLocker(db.CapturePool())
	if err != nil {
		return nil, false, err
	}
	settings.Slot, settings.Publication = "", ""
	r, err := capsql.NewRunner(capsql.Options{
		Settings: settings, DB: db.CaptureDB(), Locker: locker, Metrics: capture.NewMetrics(app.Registry),
		Logger: app.Log.With("component", "outbox-capture"),
	})
	return r, err == nil, err
}
