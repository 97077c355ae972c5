package capturerole

import (
	"context"
	"errors"

	"github.com/alternayte/queuebox/pkg/capture"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

// errNoCaptureStore is what the advisory component reports when the store
// set of database.type cannot run the capture connector (sqlserver-cdc):
// the SQL Server store exists, and the connector's SQL and logic exist
// (pkg/capture/sqlserver), but this build does not join the two yet.
var errNoCaptureStore = errors.New("sqlserver-cdc capture is not wired to the SQL Server store in this build; delivery continues through polling")

// Role is the capture role: the change-data-capture connector, only when
// outbox.capture.enabled is true (one owner per database).
var Role = wiring.Role{Name: "capture", Runs: "the outbox capture connector (outbox.capture.enabled)", Wire: wire}

// wire adds the capture connector when outbox.capture.enabled is true. Its
// outbox-capture component is advisory: a capture fault shows in the
// readiness body and never makes the instance unready.
func wire(_ context.Context, app *run.App) ([]run.Component, error) {
	c := app.Config.Outbox.Capture
	if !c.Enabled {
		return nil, nil
	}
	db, ok := app.Stores.(capture.Database)
	if !ok {
		app.Health.AddAdvisory("outbox-capture", func(context.Context) error { return errNoCaptureStore })
		app.Log.Warn("capture is not started", "mode", c.Mode, "err", errNoCaptureStore)
		return nil, nil
	}
	settings, err := captureSettings(app.Config)
	if err != nil {
		return nil, err
	}
	connector, err := capture.New(capture.Options{
		Settings: settings, Database: db, Metrics: capture.NewMetrics(app.Registry),
		Logger: app.Log.With("component", "outbox-capture"),
	})
	if err != nil {
		return nil, err
	}
	app.Health.AddAdvisory("outbox-capture", connector.Check)
	return []run.Component{connector}, nil
}
