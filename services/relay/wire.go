package main

import (
	"context"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/relay"
	"github.com/alternayte/queuebox/pkg/retention"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// wire adds the inbox relay (when inbox.relay.enabled) and the inbox
// retention job (when retention.enabled and its policy is AGE). The relay
// metrics are registered either way, so a process with the relay off
// still shows the oldest-pending gauge, at zero.
func wire(_ context.Context, app *run.App) ([]run.Component, error) {
	cfg := app.Config
	var components []run.Component
	claimsLost := claim.NewLostCounter()
	app.Registry.MustRegister(claimsLost)
	metrics := relay.NewMetrics(app.Registry, claimsLost)
	// Start the relay's own series at zero, as queuebox-deliver does for
	// its own: an increase() alert on a counter only sees an event that
	// happens after the series exists.
	claimsLost.WithLabelValues("inbox")
	metrics.Messages.WithLabelValues("forwarded")
	if cfg.Inbox.Relay.Enabled {
		store, err := postgres.NewRelay(app.DB, app.Layout, config.Ms(cfg.Inbox.Relay.ClaimTimeoutMs), relay.SourceNames(cfg))
		if err != nil {
			return nil, err
		}
		r := relay.New(relay.Options{
			Config:  cfg,
			Store:   store,
			Metrics: metrics,
			Logger:  app.Log.With("component", "inbox-relay"),
		})
		app.Health.Add("inbox-relay", r.Check)
		components = append(components, r)
	}
	if job, err := inboxRetention(app); err != nil {
		return nil, err
	} else if job != nil {
		app.Health.Add("retention-service", job.Check)
		components = append(components, job)
	}
	return components, nil
}

func inboxRetention(app *run.App) (*retention.Job, error) {
	rc := app.Config.Retention
	if !rc.Enabled {
		return nil, nil
	}
	store, err := postgres.NewRetention(app.DB, app.Layout)
	if err != nil {
		return nil, err
	}
	job := &retention.Job{
		Table:    "inbox",
		Interval: rc.Inbox.CleanupInterval.D,
		Batch:    rc.Inbox.BatchSize,
		Metrics:  retention.NewMetrics(app.Registry),
		Logger:   app.Log.With("component", "retention-service"),
	}
	if rc.Inbox.Policy == config.PolicyAge && rc.Inbox.MaxAge != nil {
		maxAge := rc.Inbox.MaxAge.D
		job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
			return store.InboxByAge(ctx, maxAge, batch)
		})
	}
	return job, nil
}
