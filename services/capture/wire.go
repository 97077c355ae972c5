package main

import (
	"context"
	"errors"

	"github.com/alternayte/queuebox/pkg/run"
)

// errNoCapture is what the advisory outbox-capture component reports while
// this build has no capture connector: delivery goes on through polling.
var errNoCapture = errors.New("change data capture is not available in this build; delivery continues through polling")

// wire adds the capture role. The connector itself comes in a later
// release; with outbox.capture.enabled the advisory health component says
// so, and the instance stays ready, as a capture fault does.
func wire(_ context.Context, app *run.App) ([]run.Component, error) {
	if app.Config.Outbox.Capture.Enabled {
		app.Health.AddAdvisory("outbox-capture", func(context.Context) error { return errNoCapture })
		app.Log.Warn("outbox.capture.enabled is true, but this build has no capture connector",
			"mode", app.Config.Outbox.Capture.Mode)
	}
	return nil, nil
}
