package deliver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// Options wire a Poller.
type Options struct {
	Config     *config.Config
	Store      queuebox.OutboxStore
	Router     *Router
	Publishers map[string]queuebox.Publisher // by destination name
	Transforms *Transforms                   // nil when no transform is configured
	Redactor   *redact.Redactor
	Metrics    *Metrics
	Logger     *slog.Logger
}

// Poller is the outbox poller: a claim loop whose handler routes,
// transforms, publishes and finishes each row. It implements the
// component contract of package run.
type Poller struct {
	opts     Options
	loop     *claim.Loop[queuebox.ClaimedMessage]
	finisher *finisher
	// published holds the destinations that got a publish, so the queue
	// depth gauge reports them (at zero when nothing waits) from then on.
	published sync.Map
	health    *claim.Health
}

// NewPoller builds the poller from the outbox configuration.
func NewPoller(opts Options) *Poller {
	p := &Poller{opts: opts,
		health: claim.NewHealth(opts.Logger, "claims fail", "claims succeed again; the outbox poller is up")}
	ob := opts.Config.Outbox
	p.finisher = newFinisher(opts.Store.Finish, opts.Store.FinishAgain, config.Ms(ob.ClaimTimeoutMs), opts.Logger)
	p.loop = claim.NewAsync(claim.Config{
		Name:            "outbox",
		BatchSize:       ob.BatchSize,
		Concurrency:     ob.Concurrency,
		PollInterval:    pollInterval(ob),
		LeaseDuration:   config.Ms(ob.ClaimTimeoutMs),
		LeaseSetting:    "outbox.claimTimeoutMs",
		ShutdownTimeout: config.Ms(ob.ShutdownTimeoutMs),
		Logger:          opts.Logger,
		Hooks: claim.Hooks{
			Lost:      func(claim.Lease) { opts.Metrics.ClaimsLost.Inc() },
			Reclaimed: func(n int64) { opts.Metrics.Reclaimed.Add(float64(n)) },
		},
		Health: p.health,
	}, opts.Store, p.handle)
	return p
}

// pollInterval is the longest wait between two claims: with capture,
// outbox.capture.reconciliationIntervalMs (wake-ups claim sooner), and
// outbox.pollIntervalMs without.
func pollInterval(ob config.Outbox) time.Duration {
	if ob.Capture.Wakes() {
		return config.Ms(ob.Capture.ReconciliationIntervalMs)
	}
	return config.Ms(ob.PollIntervalMs)
}

// Name implements run.Component.
func (p *Poller) Name() string { return "outbox-poller" }

// Wake asks for a claim now; capture calls it on an outbox insert.
func (p *Poller) Wake() { p.loop.Wake() }

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
	wg.Add(1)
	go func() { defer wg.Done(); gauges.run(ctx) }()
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

// handle processes one claimed row from route to publish, then hands the
// outcome to the writer and frees its worker; done runs after the write.
func (p *Poller) handle(ctx context.Context, m queuebox.ClaimedMessage, done func()) {
	start := time.Now()
	outcome := p.deliver(ctx, m)
	if ctx.Err() != nil {
		// Either the renewal found the claim lost (the new owner decides
		// the row's fate; the loop leaves the report of a started row to
		// this handler, so one loss counts once), or the shutdown timeout
		// passed: the row stays processing and the reclaim returns it. A
		// failure caused by the cancellation is not a failed delivery.
		if errors.Is(context.Cause(ctx), queuebox.ErrLeaseLost) {
			p.leaseLost(m.OutboxMessage)
		} else {
			p.opts.Logger.Warn("publish cancelled at shutdown; the row stays processing until its lease expires",
				"message_id", m.ID)
		}
		done()
		return
	}
	outcome.Lease = m.Lease()
	// The next row of a non-empty key waits for this write.
	holds := m.HasKey && m.Key != ""
	p.finisher.submit(outcome, holds, func(res finishResult) {
		p.finished(m, outcome, res)
		p.opts.Metrics.Processing.Since(start)
		done()
	})
}

// finished accounts for a written outcome.
func (p *Poller) finished(m queuebox.ClaimedMessage, outcome queuebox.Outcome, res finishResult) {
	switch {
	case res.err != nil:
		p.opts.Metrics.ProcessErrors.Inc()
		p.opts.Logger.Error("writing the outcome failed; the row stays processing until its lease expires",
			"message_id", m.ID, "outcome", outcome.Kind, "err", res.err)
	case !res.kept:
		p.claimLost(m.OutboxMessage, outcome.Kind)
	default:
		p.count(outcome.Kind)
		p.logFailure(m.OutboxMessage, outcome)
	}
}

// logFailure reports a written retry or dead outcome. Its text is the
// redacted, truncated last_error, never the raw error.
func (p *Poller) logFailure(m *queuebox.OutboxMessage, outcome queuebox.Outcome) {
	switch outcome.Kind {
	case queuebox.OutcomeRetry:
		p.opts.Logger.Warn("delivery failed; retry scheduled", "message_id", m.ID, "topic", m.Topic,
			"attempt", m.Attempt+1, "max_attempts", m.MaxAttempts, "retry_in_ms", outcome.Delay.Milliseconds(),
			"error", outcome.Error)
	case queuebox.OutcomeDead:
		p.opts.Logger.Warn("message is dead", "message_id", m.ID, "topic", m.Topic,
			"attempt", m.Attempt, "max_attempts", m.MaxAttempts, "error", outcome.Error)
	}
}

func (p *Poller) count(kind queuebox.OutcomeKind) {
	status := string(kind)
	if kind == queuebox.OutcomeRetry {
		status = "failed"
	}
	p.opts.Metrics.Messages.WithLabelValues(status).Inc()
}

// claimLost logs and counts a terminal write that found another owner. A
// lost mark-sent means the destination holds a duplicate.
func (p *Poller) claimLost(m *queuebox.OutboxMessage, kind queuebox.OutcomeKind) {
	p.opts.Metrics.ClaimsLost.Inc()
	log := p.opts.Logger.With("message_id", m.ID, "topic", m.Topic, "attempt", m.Attempt, "outcome", kind)
	if kind == queuebox.OutcomeSent {
		log.Error("claim lost after the publish: another replica owns the row and will publish it again; raise outbox.claimTimeoutMs above the slowest publish")
		return
	}
	log.Warn("claim lost before the outcome was written; another replica owns the row")
}

// leaseLost logs and counts a claim that a renewal found lost while the
// row was routed, transformed or published. The publish may have reached
// the destination, and the new owner publishes the row again.
func (p *Poller) leaseLost(m *queuebox.OutboxMessage) {
	p.opts.Metrics.ClaimsLost.Inc()
	p.opts.Logger.Error("lease lost before the outcome was written; the publish is cancelled and another replica owns the row; raise outbox.claimTimeoutMs above the slowest publish",
		"message_id", m.ID, "topic", m.Topic, "attempt", m.Attempt)
}

// failure turns an error into the retry or dead outcome of the row.
func (p *Poller) failure(m *queuebox.OutboxMessage, reason string) queuebox.Outcome {
	text := p.lastError(reason)
	if m.Attempt >= m.MaxAttempts {
		return queuebox.Dead(text)
	}
	base := config.Ms(p.opts.Config.Outbox.RetryBaseDelayMs)
	return queuebox.Retry(RetryDelay(base, m.Attempt, randomJitter()), text)
}

func (p *Poller) dead(reason string) queuebox.Outcome {
	return queuebox.Dead(p.lastError(reason))
}

// lastError redacts known secrets and cuts the text to
// http.maxErrorBodyBytes before it reaches a log or last_error. A nil
// Redactor still applies the key rules, so it is called in every case.
// NUL bytes go and invalid UTF-8 becomes U+FFFD first: PostgreSQL refuses
// both in a text column, and the outcome write of the whole group would
// fail on every try.
func (p *Poller) lastError(reason string) string {
	clean := strings.ReplaceAll(strings.ToValidUTF8(reason, "\uFFFD"), "\x00", "")
	return redact.Truncate(p.opts.Redactor.Redact(clean), p.opts.Config.HTTP.MaxErrorBodyBytes)
}

func noPublisher(d *config.Destination) string {
	return fmt.Sprintf("Destination %s of type %s has no publisher in this build", d.Name, d.Kind)
}
