package deliver

import (
	"context"
	"fmt"
	"sync"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Poller is the outbox poller: a claim loop whose handler routes,
// transforms, publishes and finishes each row (deliver.go, top to
// bottom). It implements the component contract of package run.
type Poller struct {
	opts     Options
	loop     *claim.Loop[queuebox.ClaimedMessage]
	finisher *finisher
	// published holds the destinations that got a publish, so the queue
	// depth gauge reports them (at zero when nothing waits) from then on.
	published sync.Map
	// counters caches the success counter per destination (metrics.go).
	counters  sync.Map
	health    *claim.Health
	postponer *postponer
	// keys routes the keyed rows before their claim (lanes.go).
	keys *keyRouter
	// live is loop.Live, the lease check before each publish; a benchmark
	// that drives attempt without a claim (the row is held by no loop)
	// replaces it.
	live func(claim.Lease) bool
}

// NewPoller builds the poller. It returns an error when a required option
// is missing or a setting is negative.
func NewPoller(opts Options) (*Poller, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if rt, ok := opts.Router.FanOut(); ok && !queuebox.HasLanes(opts.Store) {
		return nil, fmt.Errorf("routes[%d].destinations: a route with several destinations needs the outbox columns destination and origin_id, which the outbox table lacks (the start's schema warning gives the statements that add them)", rt.Index)
	}
	p := &Poller{opts: opts,
		health: claim.NewHealth(opts.Logger, "claims fail", "claims succeed again; the outbox poller is up")}
	p.postponer = newPostponer(opts.Store)
	warn := &warner{logger: opts.Logger}
	p.finisher = newFinisher(opts.Store.Finish, opts.Store.FinishAgain, opts.ClaimTimeout, opts.Logger)
	p.loop = claim.NewAsync(claim.Config{
		Name:            "outbox",
		BatchSize:       opts.BatchSize,
		Concurrency:     opts.Concurrency,
		PollInterval:    opts.PollInterval,
		LeaseDuration:   opts.ClaimTimeout,
		LeaseSetting:    "outbox.claimTimeoutMs",
		ShutdownTimeout: opts.ShutdownTimeout,
		Logger:          opts.Logger,
		Hooks: claim.Hooks{
			Lost:      func(claim.Lease) { opts.Metrics.ClaimsLost.Inc() },
			Reclaimed: func(n int64) { opts.Metrics.Reclaimed.Add(float64(n)) },
		},
		Health: p.health,
	}, &laneSource{OutboxStore: opts.Store, router: opts.Router, warn: warn, postponer: p.postponer}, p.handle)
	p.finisher.held = p.loop.Held
	p.live = p.loop.Live
	p.keys = newKeyRouter(opts.Store, opts.Router, opts.PollInterval, warn,
		func(id, reason string) {
			opts.Metrics.Messages.WithLabelValues("dead").Inc()
			opts.Logger.Warn("message is dead", "message_id", id, "error", reason)
		}, p.loop.Wake)
	return p, nil
}

// Name implements run.Component.
func (p *Poller) Name() string { return "outbox-poller" }

// Wake asks for a routing step and a claim now; capture calls it on an
// outbox insert.
func (p *Poller) Wake() {
	p.keys.Wake()
	p.loop.Wake()
}

// Run claims and delivers until ctx ends, then drains as claim.Loop.Run
// documents. It returns once the outcomes decided in the drain are
// written (or their writes gave up), so the caller may close the
// publishers then. Call it once.
func (p *Poller) Run(ctx context.Context) error {
	// The finisher outlives ctx: it writes the outcomes of the drain.
	stop, stopFinisher := context.WithCancel(context.Background())
	defer stopFinisher()
	go p.finisher.run(stop)
	gauges := newGaugeRefresher(p.opts, &p.published)
	var wg sync.WaitGroup
	wg.Go(func() { gauges.run(ctx) })
	wg.Go(func() { p.keys.run(ctx) })
	err := p.loop.Run(ctx)
	stopFinisher()
	<-p.finisher.stopped
	wg.Wait()
	return err
}

// Check is the health check of the outbox-poller component: down from a
// failed claim ("claims fail: ...") until the next answered claim, empty
// ones included. It is safe for concurrent use and never blocks.
func (p *Poller) Check(ctx context.Context) error { return p.health.Check(ctx) }
