package main

import (
	"context"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/retention"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/transform"
)

// wire adds the outbox poller, its publishers, the admin routes and the
// outbox retention job.
func wire(ctx context.Context, app *run.App) ([]run.Component, error) {
	cfg := app.Config
	store, err := postgres.NewOutbox(app.DB, app.Layout, config.Ms(cfg.Outbox.ClaimTimeoutMs))
	if err != nil {
		return nil, err
	}
	router, err := deliver.NewRouter(cfg.Routes, cfg.Destinations)
	if err != nil {
		return nil, err
	}
	redactor := redact.New(secret.Values(cfg)...)
	m := deliver.NewMetrics(app.Registry)
	publishers, err := newPublishers(ctx, app, redactor)
	if err != nil {
		return nil, err
	}
	transforms, err := deliver.NewTransforms(cfg, transform.JSONata)
	if err != nil {
		return nil, err
	}
	poller := deliver.NewPoller(deliver.Options{
		Config: cfg, Store: store, Router: router, Publishers: publishers, Transforms: transforms,
		Redactor: redactor, Metrics: m, Logger: app.Log.With("component", "outbox-poller"),
	})
	app.Health.Add("outbox-poller", poller.Check)
	if err := mountAdmin(app, router); err != nil {
		return nil, err
	}
	components := []run.Component{closeAfter{poller, publishers}}
	job, err := outboxRetention(app)
	if err != nil {
		return nil, err
	}
	if job != nil {
		app.Health.Add("retention-service", job.Check)
		components = append(components, job)
	}
	return components, nil
}

// closeAfter runs the poller and closes the publishers only once its Run
// has returned. The poller keeps publishing the rows it already holds
// during its shutdown drain; a publisher closed as soon as the shutdown
// starts would fail each of them and burn an attempt, or send it dead.
type closeAfter struct {
	run.Component
	publishers map[string]queuebox.Publisher
}

func (c closeAfter) Run(ctx context.Context) error {
	err := c.Component.Run(ctx)
	for _, p := range c.publishers {
		_ = p.Close()
	}
	return err
}

func outboxRetention(app *run.App) (*retention.Job, error) {
	rc := app.Config.Retention
	if !rc.Enabled {
		return nil, nil
	}
	store, err := postgres.NewRetention(app.DB, app.Layout)
	if err != nil {
		return nil, err
	}
	p := rc.Outbox
	job := &retention.Job{
		Table: "outbox", Interval: p.CleanupInterval.D, Batch: p.BatchSize,
		Metrics: retention.NewMetrics(app.Registry), Logger: app.Log.With("component", "retention-service"),
	}
	switch {
	case p.Policy == config.PolicyAge && p.MaxAge != nil:
		maxAge := p.MaxAge.D
		job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
			return store.OutboxByAge(ctx, maxAge, batch)
		})
	case p.Policy == config.PolicyCount && p.MaxCount != nil:
		keep := *p.MaxCount
		for _, state := range []string{queuebox.StateSent, queuebox.StateDead} {
			job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
				return store.OutboxByCount(ctx, state, keep, batch)
			})
		}
	}
	return job, nil
}

// mountAdmin registers the admin routes on the management router when
// admin.enabled is true.
func mountAdmin(app *run.App, router *deliver.Router) error {
	if !app.Config.Admin.Enabled {
		return nil
	}
	store, err := postgres.NewReplay(app.DB, app.Layout)
	if err != nil {
		return err
	}
	replay, err := admin.NewReplay(app.Config.Admin, store, router.DestinationOf, app.Log.With("component", "admin"))
	if err != nil {
		return err
	}
	test, err := admin.NewTransformTest(app.Config.Admin, transform.JSONata)
	if err != nil {
		return err
	}
	admin.Mount(app.Management, app.Config.Admin, admin.Routes{Replay: replay, TransformTest: test}, app.Log)
	return nil
}
