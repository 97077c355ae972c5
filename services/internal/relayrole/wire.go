package relayrole

import (
	"context"
	"maps"
	"slices"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/relay"
	"github.com/alternayte/queuebox/pkg/retention"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

// Role is the relay role: the inbox relay, the inbox retention job and
// the inbox partition maintenance.
var Role = wiring.Role{Name: "relay", Runs: "the inbox relay (inbox.relay.enabled), inbox retention and inbox partitions", Wire: wire}

// wire adds the inbox relay (when inbox.relay.enabled) and the inbox
// retention job (when retention.enabled and its policy is AGE). The relay
// metrics are registered either way, so a process with the relay off
// still shows the oldest-pending gauge, at zero.
func wire(_ context.Context, app *run.App) ([]run.Component, error) {
	cfg := app.Config
	var components []run.Component
	metrics := relay.NewMetrics(app.Registry)
	// Start the forwarded series at zero, as NewMetrics does for the lost
	// claims: an increase() alert on a counter only sees an event that
	// happens after the series exists.
	metrics.Messages.WithLabelValues("forwarded")
	if cfg.Inbox.Relay.Enabled {
		store, err := app.Stores.Relay(queuebox.RelayParams{
			Lease: config.Ms(cfg.Inbox.Relay.ClaimTimeoutMs), Sources: slices.Sorted(maps.Keys(cfg.Sources)),
			MaxAttempts: cfg.EffectiveMaxAttempts(),
		})
		if err != nil {
			return nil, err
		}
		opts := relayOptions(cfg)
		opts.Store, opts.Metrics, opts.Logger = store, metrics, app.Log.With("component", "inbox-relay")
		r, err := relay.New(opts)
		if err != nil {
			return nil, err
		}
		app.Health.Add("inbox-relay", r.Check)
		components = append(components, r)
	}
	if cfg.Retention.Enabled {
		cleanup, err := app.Stores.Retention()
		if err != nil {
			return nil, err
		}
		job, err := retention.Inbox(wiring.Retention(cfg.Retention.Inbox), cleanup, app.Registry, app.Log)
		if err != nil {
			return nil, err
		}
		app.Health.Add("retention-service", job.Check)
		components = append(components, job)
	}
	components = append(components, wiring.Partitions(app, queuebox.TableInbox)...)
	return components, nil
}
