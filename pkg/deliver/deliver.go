package deliver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/deliver/flow"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// One claimed row, top to bottom (doc.go numbers the steps): handle takes
// it from the claim loop; attempt prepares it (route, publisher, gate,
// transform, lease), publishes it and releases the destination's permit
// once; failure and dead decide a failed row's retry or death; the
// finisher writes the outcome with the claim fence; and finished accounts
// for the write.

// handle processes one claimed row from route to publish, then hands the
// outcome to the writer and frees its worker; done runs after the write.
func (p *Poller) handle(ctx context.Context, m queuebox.ClaimedMessage, done func()) {
	start := time.Now()
	outcome, logCtx := p.deliver(ctx, m)
	if ctx.Err() != nil {
		// Either the renewal found the claim lost (the new owner decides
		// the row's fate; the loop leaves the report of a started row to
		// this handler, so one loss counts once), or too little of the
		// lease was left to publish (nothing was sent), or the shutdown
		// timeout passed: the row stays processing and the reclaim returns
		// it. A failure caused by the cancellation is not a failed
		// delivery.
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, claim.ErrLeaseEnding):
			p.leaseEnding(logCtx, m.OutboxMessage)
		case errors.Is(cause, queuebox.ErrLeaseLost):
			p.leaseLost(logCtx, m.OutboxMessage)
		default:
			p.opts.Logger.WarnContext(logCtx, "publish cancelled at shutdown; the row stays processing until its lease expires",
				"message_id", m.ID)
		}
		done()
		return
	}
	outcome.Lease = m.Lease()
	// The next row of a non-empty key waits for this write.
	holds := m.HasKey && m.Key != ""
	p.finisher.submit(outcome, holds, func(res finishResult) {
		p.finished(logCtx, m, outcome, res)
		p.opts.Metrics.Processing.Since(start)
		done()
	})
}

// deliver routes, transforms and publishes one row and returns its
// outcome (without the lease) and the context of the log lines about it:
// ctx, with the span of the attempt when one was traced.
func (p *Poller) deliver(ctx context.Context, row queuebox.ClaimedMessage) (queuebox.Outcome, context.Context) {
	pubCtx, attempt := tracing.WithAttemptSpan(ctx)
	outcome := p.attempt(ctx, pubCtx, row)
	return outcome, attempt()
}

// attempt is deliver without the log context; pubCtx is ctx prepared for
// the publish. A row takes two steps: prepare decides all that comes
// before the publish and takes the destination's permit, and publish
// sends the row when prepare left it ready. release then ends the permit,
// once, whatever became of the row. The outcome names the destination
// the row went to, which the write records on a row routed at its claim,
// and carries the facts of the attempt for the delivery ledger (facts).
func (p *Poller) attempt(ctx, pubCtx context.Context, row queuebox.ClaimedMessage) queuebox.Outcome {
	begun := time.Now()
	s, end, ready := p.prepare(ctx, row)
	if ready {
		end = p.publish(ctx, pubCtx, &s)
	}
	outcome := p.release(ctx, &s, end)
	p.facts(&outcome, row.OutboxMessage, begun)
	return outcome
}

// target is where one row goes: its destination, and the route that
// sends the row's topic there (its transform and routing key template).
type target struct {
	route Route
	dest  DestinationSpec
}

// sending is one row on its way to its target: the destination's
// publisher, the permit of the destination's gate (nil until the gate
// admits the row, or when the destination has none; flow.Permit's methods
// accept nil), and the delivery that publish sends.
type sending struct {
	target
	pub      queuebox.Publisher
	permit   *flow.Permit
	delivery queuebox.Delivery
}

// ended is what became of a row: its outcome and the result that its
// permit reports. unsent marks a publish that reached nothing, whose
// result carries the pause the destination asked for and the refusal's
// text; release turns it into a deferral.
type ended struct {
	outcome queuebox.Outcome
	result  flow.Result
	unsent  bool
}

// stopped ends a row that no publish sent: its permit counts for nothing.
func stopped(o queuebox.Outcome) ended {
	return ended{outcome: o, result: flow.Result{Skipped: true}}
}

// fanOutRetry is the wait of a row whose fan-out could not be written at
// its claim (see laneSource): it is deferred, no attempt spent, and its
// next claim writes the fan-out again.
const fanOutRetry = time.Second

// prepare takes a row up to its publish: its target, its publisher, the
// destination's permit, its transformed body, and a last look at its
// lease. ready is true when the row is to be published; otherwise end
// holds its outcome. Either way s.permit is left for release to end.
func (p *Poller) prepare(ctx context.Context, row queuebox.ClaimedMessage) (s sending, end ended, ready bool) {
	m := row.OutboxMessage
	t, early := p.resolve(m)
	if early != nil {
		return s, stopped(*early), false
	}
	s.target = t
	if s.pub = p.opts.Publishers[t.dest.Name]; s.pub == nil {
		return s, stopped(p.dead(queuebox.ClassNoRoute,
			fmt.Sprintf("Destination %s of type %s has no publisher in this build", t.dest.Name, t.dest.Kind))), false
	}
	if row.HeadersErr != nil {
		// No retry can repair the row; an operator corrects the column and
		// requeues it.
		return s, stopped(p.dead(queuebox.ClassUndeliverable, "Row cannot be delivered: "+row.HeadersErr.Error())), false
	}
	// The destination's gate comes before the transform: a row that its
	// destination cannot take now costs no transform and no attempt.
	permit, deferral := p.admit(ctx, t.dest.Name)
	if deferral != nil {
		return s, stopped(*deferral), false
	}
	s.permit = permit
	body, outcome, ok := p.transform(ctx, t, m)
	if !ok {
		return s, stopped(outcome), false
	}
	if !p.live(row.Lease()) {
		// Too little of the lease is left to publish and write the outcome
		// before it runs out (the replica was stopped, or the database has
		// been away): another replica may have the row already. The loop
		// ended ctx; handle writes nothing and the row waits for the end of
		// its lease, to be delivered then.
		return s, stopped(queuebox.Outcome{}), false
	}
	s.delivery = queuebox.Delivery{Message: m, Body: body,
		RoutingKeyTemplate:  t.route.Spec.RoutingKeyTemplate,
		MissingFieldDefault: t.route.Spec.RoutingKeyMissingFieldDefault}
	return s, ended{}, true
}

// resolve finds the row's target: the destination the row was routed to,
// or, for a row routed at this claim, the one destination of its route.
// early is the outcome of a row that has none: dead when no route matches
// its topic or when the current routes no longer send its topic to the
// destination it was given (a row keeps its destination; it is never
// sent where the current routes would not send it), deferred when its
// fan-out is still to be written.
func (p *Poller) resolve(m *queuebox.OutboxMessage) (target, *queuebox.Outcome) {
	route, ok := p.opts.Router.Match(m.Topic)
	if !ok {
		o := p.dead(queuebox.ClassNoRoute, noRouteReason(m.Topic))
		return target{}, &o
	}
	name := m.Destination
	if name == "" {
		if len(route.Destinations) > 1 {
			o := queuebox.Defer(fanOutRetry)
			o.Attempt.Class = queuebox.ClassFanOut
			return target{}, &o
		}
		name = route.Destinations[0].Name
	}
	dest, ok := route.To(name)
	if !ok {
		o := p.dead(queuebox.ClassNoRoute, fmt.Sprintf("No route sends topic %s to destination %s any more (the routes changed after the row was routed there)",
			m.Topic, name))
		return target{}, &o
	}
	p.postponer.routed(m.Topic, route.Names())
	return target{route: route, dest: dest}, nil
}

// publish sends a prepared row and says what became of it, with the
// facts of the attempt: when it started, how long it took and what the
// destination answered (the publisher's Receipt). It leaves the permit to
// release.
func (p *Poller) publish(ctx, pubCtx context.Context, s *sending) ended {
	dest := s.dest
	var receipt queuebox.Receipt
	s.delivery.Receipt = &receipt
	start := time.Now()
	err := s.pub.Publish(pubCtx, s.delivery)
	took := time.Since(start)
	p.opts.Metrics.Publish.Observe(took, dest.Kind)
	p.markPublished(dest.Name)
	facts := queuebox.AttemptFacts{StartedAt: start, Duration: took, Status: answerStatus(receipt, err)}
	if pause, ok := flow.Unsent(err, time.Now()); ok && ctx.Err() == nil {
		// Nothing reached the destination (a blocked connection): the row
		// is deferred like one the gate turned away, no attempt spent.
		why := p.lastError(fmt.Sprintf("%s refused the publish: %v", dest.Name, err))
		facts.Class, facts.Answer = queuebox.ClassRefused, why
		return ended{unsent: true, result: flow.Result{Skipped: true, Pause: pause, Reason: why},
			outcome: queuebox.Outcome{Attempt: facts}}
	}
	if err == nil {
		p.sentCounter(dest.Name).Inc()
		end := ended{outcome: queuebox.Sent()}
		end.outcome.Attempt = facts
		return end
	}
	p.opts.Metrics.DestinationMessages.WithLabelValues(dest.Name, "failure").Inc()
	reason := fmt.Sprintf("Publish to %s failed: %v", dest.Name, err)
	end := ended{result: flow.Classify(ctx, err, p.lastError(reason), time.Now())}
	class := failureClass(err)
	if errors.Is(err, queuebox.ErrUndeliverable) {
		// No attempt can succeed: retrying would only burn them.
		end.outcome = p.dead(class, reason)
	} else {
		end.outcome = p.failure(s.delivery.Message, class, reason)
	}
	facts.Class, facts.Answer = class, cmp.Or(receipt.Answer, reason)
	end.outcome.Attempt = facts
	return end
}

// release ends the row's permit, the one place that does, and returns
// the row's outcome with its destination named. A publish that reached
// nothing becomes a deferral until the end of the pause that the
// destination asked for, and the destination's other rows move out of
// the claims with it (postpone).
func (p *Poller) release(ctx context.Context, s *sending, end ended) queuebox.Outcome {
	outcome := end.outcome
	if end.unsent {
		d := s.permit.Defer(end.result.Pause, end.result.Reason, time.Now())
		p.postpone(ctx, s.dest.Name, &d)
		outcome = queuebox.Defer(max(0, time.Until(d.Until)))
		outcome.Attempt = end.outcome.Attempt
	} else {
		s.permit.Done(end.result)
	}
	outcome.Destination = s.dest.Name
	return outcome
}

// admit asks the destination's gate for a publish. A nil permit with a
// nil deferral means the destination has no gate; Permit.Done is safe on
// it. A deferral is the outcome of a row the destination cannot take now:
// back to pending until the time the gate names, no attempt spent, still
// the head of its key.
func (p *Poller) admit(ctx context.Context, dest string) (*flow.Permit, *queuebox.Outcome) {
	gate := p.opts.Flow.Gate(dest)
	if gate == nil {
		return nil, nil
	}
	permit, d := gate.Admit(ctx)
	if d == nil {
		return permit, nil
	}
	p.postpone(ctx, dest, d)
	outcome := queuebox.Defer(max(0, time.Until(d.Until)))
	outcome.Attempt.Class, outcome.Attempt.Answer = queuebox.AttemptClass(d.Reason), d.Detail
	return nil, &outcome
}

// transform runs the route and destination transforms. ok is false when a
// transform decided the outcome (Fail or Dead).
func (p *Poller) transform(ctx context.Context, t target, m *queuebox.OutboxMessage) ([]byte, queuebox.Outcome, bool) {
	if p.opts.Transforms == nil {
		return m.Payload, queuebox.Outcome{}, true
	}
	body, skipped, failure := p.opts.Transforms.Apply(ctx, t.route, t.dest, m)
	if skipped > 0 {
		p.opts.Metrics.TransformFailures.WithLabelValues(StrategySkip).Add(float64(skipped))
	}
	if failure == nil {
		return body, queuebox.Outcome{}, true
	}
	if failure.Cancelled {
		// handle sees the ended context and writes no outcome.
		return nil, queuebox.Outcome{}, false
	}
	p.opts.Metrics.TransformFailures.WithLabelValues(failure.Strategy).Inc()
	reason := "Transform failed: " + failure.Err.Error()
	if failure.Strategy == StrategyDead {
		return nil, p.dead(queuebox.ClassTransform, reason), false
	}
	return nil, p.failure(m, queuebox.ClassTransform, reason), false
}

// failure turns an error into the retry or dead outcome of the row: the
// one place that decides whether a failed attempt retries. class names
// the failure in the delivery ledger.
func (p *Poller) failure(m *queuebox.OutboxMessage, class queuebox.AttemptClass, reason string) queuebox.Outcome {
	text := p.lastError(reason)
	o := queuebox.Retry(RetryDelay(p.opts.RetryBaseDelay, m.Attempt, rand.Float64()), text)
	if m.Attempt >= m.MaxAttempts {
		o = queuebox.Dead(text)
	}
	o.Attempt.Class = class
	return o
}

// dead is the outcome of a row that no attempt can deliver, its failure
// named class in the delivery ledger.
func (p *Poller) dead(class queuebox.AttemptClass, reason string) queuebox.Outcome {
	o := queuebox.Dead(p.lastError(reason))
	o.Attempt.Class = class
	return o
}

// MaxRetryDelay caps the backoff of a failed delivery.
const MaxRetryDelay = 60 * time.Second

// RetryDelay is the wait before the next attempt after a failure at
// attempt: base × 2^attempt plus a random 0 to 25 percent, at most
// MaxRetryDelay. jitter is a value in [0, 1) that scales the random part.
func RetryDelay(base time.Duration, attempt int, jitter float64) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 0; i < attempt && d < MaxRetryDelay; i++ {
		d *= 2
	}
	d += time.Duration(float64(d) * 0.25 * jitter)
	return min(d, MaxRetryDelay)
}

// lastError redacts known secrets and cuts the text to MaxErrorBytes
// before it reaches a log or last_error. A nil Redactor still applies the
// key rules, so it is called in every case. Invalid UTF-8 becomes U+FFFD
// first, and every C0 and C1 control character but tab and newline goes,
// NUL included: PostgreSQL refuses NUL and invalid UTF-8 in a text column
// (the outcome write of the whole group would fail on every try), and a
// receiver's error body must not carry terminal escape sequences to the
// operator who reads last_error in a shell.
func (p *Poller) lastError(reason string) string { return p.clean(reason, p.opts.MaxErrorBytes) }

// clean is lastError with a bound of limit bytes: the delivery ledger's
// answer goes through it too, so it reads as last_error does.
func (p *Poller) clean(text string, limit int) string {
	clean := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\t' && r != '\n' {
			return -1
		}
		return r
	}, strings.ToValidUTF8(text, "\uFFFD"))
	return redact.Truncate(p.opts.Redactor.Redact(clean), limit)
}

// finished accounts for a written outcome.
func (p *Poller) finished(ctx context.Context, m queuebox.ClaimedMessage, outcome queuebox.Outcome, res finishResult) {
	switch {
	case res.err != nil:
		p.opts.Metrics.ProcessErrors.Inc()
		p.opts.Logger.ErrorContext(ctx, "writing the outcome failed; the row stays processing until its lease expires",
			"message_id", m.ID, "outcome", outcome.Kind, "err", res.err)
	case !res.kept:
		p.claimLost(ctx, m.OutboxMessage, outcome.Kind)
	default:
		p.count(outcome.Kind)
		p.logFailure(ctx, m.OutboxMessage, outcome)
	}
}

// logFailure reports a written retry or dead outcome. Its text is the
// redacted, truncated last_error, never the raw error.
func (p *Poller) logFailure(ctx context.Context, m *queuebox.OutboxMessage, outcome queuebox.Outcome) {
	switch outcome.Kind {
	case queuebox.OutcomeRetry:
		p.opts.Logger.WarnContext(ctx, "delivery failed; retry scheduled", "message_id", m.ID, "topic", m.Topic,
			"attempt", m.Attempt+1, "max_attempts", m.MaxAttempts, "retry_in_ms", outcome.Delay.Milliseconds(),
			"error", outcome.Error)
	case queuebox.OutcomeDead:
		p.opts.Logger.WarnContext(ctx, "message is dead", "message_id", m.ID, "topic", m.Topic,
			"attempt", m.Attempt, "max_attempts", m.MaxAttempts, "error", outcome.Error)
	}
}

func (p *Poller) count(kind queuebox.OutcomeKind) {
	if kind == queuebox.OutcomeDefer {
		// Counted by reason in queuebox_destination_deferred_total.
		return
	}
	status := string(kind)
	if kind == queuebox.OutcomeRetry {
		status = "failed"
	}
	p.opts.Metrics.Messages.WithLabelValues(status).Inc()
}

// claimLost logs and counts a terminal write that found another owner. A
// lost mark-sent means the destination holds a duplicate.
func (p *Poller) claimLost(ctx context.Context, m *queuebox.OutboxMessage, kind queuebox.OutcomeKind) {
	p.opts.Metrics.ClaimsLost.Inc()
	log := p.opts.Logger.With("message_id", m.ID, "topic", m.Topic, "attempt", m.Attempt, "outcome", kind)
	if kind == queuebox.OutcomeSent {
		log.ErrorContext(ctx, "claim lost after the publish: another replica owns the row and will publish it again; raise outbox.claimTimeoutMs above the slowest publish")
		return
	}
	log.WarnContext(ctx, "claim lost before the outcome was written; another replica owns the row")
}

// leaseEnding logs and counts a claim given up before the publish: too
// little of its lease was left (see claim.Loop.Live). Nothing was
// published; the row is delivered once its lease has run out.
func (p *Poller) leaseEnding(ctx context.Context, m *queuebox.OutboxMessage) {
	p.opts.Metrics.ClaimsLost.Inc()
	p.opts.Logger.WarnContext(ctx, "lease about to run out before the publish; the row is not published and returns to pending when its lease ends",
		"message_id", m.ID, "topic", m.Topic, "attempt", m.Attempt)
}

// leaseLost logs and counts a claim that a renewal found lost while the
// row was routed, transformed or published. The publish may have reached
// the destination, and the new owner publishes the row again.
func (p *Poller) leaseLost(ctx context.Context, m *queuebox.OutboxMessage) {
	p.opts.Metrics.ClaimsLost.Inc()
	p.opts.Logger.ErrorContext(ctx, "lease lost before the outcome was written; the publish is cancelled and another replica owns the row; raise outbox.claimTimeoutMs above the slowest publish",
		"message_id", m.ID, "topic", m.Topic, "attempt", m.Attempt)
}
