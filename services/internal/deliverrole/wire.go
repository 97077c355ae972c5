package deliverrole

import (
	"context"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/deliver/flow"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/retention"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/tracing"
	"github.com/alternayte/queuebox/pkg/transform"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

// Role is the deliver role: the outbox poller with its publishers, the
// wake listener when capture wakes the poller, the outbox and delivery
// ledger retention jobs and the outbox partition maintenance.
var Role = wiring.Role{Name: "deliver", Runs: "the outbox poller and its publishers, the wake listener, outbox and ledger retention and outbox partitions", Wire: wire}

// wire adds the outbox poller, its publishers, the wake listener and the
// retention jobs.
func wire(ctx context.Context, app *run.App) ([]run.Component, error) {
	cfg := app.Config
	store, err := app.Stores.Outbox(config.Ms(cfg.Outbox.ClaimTimeoutMs))
	if err != nil {
		return nil, err
	}
	store = tracing.WrapOutbox(store, tracing.NewBatch()) // claim and finish spans when tracing is on
	routes, dests := wiring.RouteSpecs(cfg)
	router, err := deliver.NewRouter(routes, dests)
	if err != nil {
		return nil, err
	}
	redactor := redact.New(secret.Values(cfg)...)
	m := deliver.NewMetrics(app.Registry)
	publishers, err := newPublishers(ctx, app, redactor)
	if err != nil {
		return nil, err
	}
	transforms, err := deliver.NewTransforms(routes, dests, transform.JSONata)
	if err != nil {
		return nil, err
	}
	opts := pollerSettings(cfg)
	opts.Store, opts.Router, opts.Publishers, opts.Transforms = store, router, publishers, transforms
	opts.Redactor, opts.Metrics, opts.Logger = redactor, m, app.Log.With("component", "outbox-poller")
	opts.Flow = flow.NewSet(flowConfigs(cfg), app.Registry, nil, app.Log.With("component", "flow-control"))
	app.Flow = opts.Flow // the destinations page of this process's admin routes
	poller, err := deliver.NewPoller(opts)
	if err != nil {
		return nil, err
	}
	app.Health.Add("outbox-poller", poller.Check)
	for _, name := range opts.Flow.Names() {
		// Degraded while its breaker is open: shown, never a 503.
		app.Health.Add("destination."+name, opts.Flow.Check(name))
	}
	components := []run.Component{closeAfter{poller, publishers}}
	// A store set without a wake source leaves the poller on its timer.
	if cfg.Outbox.Capture.Wakes() {
		if listener, ok := app.Stores.WakeSource(poller.Wake, app.Log.With("component", "outbox-wake-listener")); ok {
			components = append(components, listener)
		}
	}
	jobs, err := retentionJobs(app)
	if err != nil {
		return nil, err
	}
	components = append(components, jobs...)
	components = append(components, wiring.Partitions(app, queuebox.TableOutbox)...)
	return components, nil
}

// retentionJobs are the cleanups deliver runs: the outbox's while
// retention.enabled is true, and the delivery ledger's while the ledger
// is written with policy AGE, whatever retention.enabled says, so that a
// ledger on by default never grows without bound.
func retentionJobs(app *run.App) ([]run.Component, error) {
	cfg := app.Config
	var builds []func(queuebox.RetentionStore) (*retention.Job, error)
	if cfg.Retention.Enabled {
		builds = append(builds, func(s queuebox.RetentionStore) (*retention.Job, error) {
			return retention.Outbox(wiring.Retention(cfg.Retention.Outbox), s, app.Registry, app.Log)
		})
	}
	if cfg.LedgerCleanupRuns() {
		builds = append(builds, func(s queuebox.RetentionStore) (*retention.Job, error) {
			return retention.Ledger(wiring.LedgerRetention(cfg.Retention.Ledger), s, app.Registry, app.Log)
		})
	}
	if len(builds) == 0 {
		return nil, nil
	}
	cleanup, err := app.Stores.Retention()
	if err != nil {
		return nil, err
	}
	var jobs []run.Component
	for _, build := range builds {
		job, err := build(cleanup)
		if err != nil {
			return nil, err
		}
		// The readiness body shows retention-service only while
		// retention.enabled is true, as documented; the ledger's own
		// cleanup, which runs by default, reports through its metrics
		// and logs instead.
		if cfg.Retention.Enabled {
			app.Health.Add("retention-service", job.Check)
		}
		jobs = append(jobs, job)
	}
	return jobs, nil
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
