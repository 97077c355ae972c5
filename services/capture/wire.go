package main

import (
	"context"
	"errors"

	"github.com/alternayte/queuebox/pkg/capture"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/run"
)

// errNoSQLServerCapture is what the advisory component reports for
// sqlserver-cdc: the connector's SQL and logic exist (pkg/capture/sqlserver),
// but this build has no SQL Server store or driver to run them on.
var errNoSQLServerCapture = errors.New("sqlserver-cdc capture needs the SQL Server store, which this build does not have; delivery continues through polling")

// wire adds the capture connector when outbox.capture.enabled is true. Its
// outbox-capture component is advisory: a capture fault shows in the
// readiness body and never makes the instance unready.
func wire(_ context.Context, app *run.App) ([]run.Component, error) {
	c := app.Config.Outbox.Capture
	if !c.Enabled {
		return nil, nil
	}
	if c.Mode != config.CapturePostgresLogical {
		app.Health.AddAdvisory("outbox-capture", func(context.Context) error { return errNoSQLServerCapture })
		app.Log.Warn("capture is not started", "mode", c.Mode, "err", errNoSQLServerCapture)
		return nil, nil
	}
	settings, err := capture.FromConfig(app.Config)
	if err != nil {
		return nil, err
	}
	connector, err := capture.New(capture.Options{
		Settings: settings, Metrics: capture.NewMetrics(app.Registry),
		Logger: app.Log.With("component", "outbox-capture"),
	})
	if err != nil {
		return nil, err
	}
	app.Health.AddAdvisory("outbox-capture", connector.Check)
	return []run.Component{connector}, nil
}
