package deliver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// deliver routes, transforms and publishes one row and returns its
// outcome (without the lease).
func (p *Poller) deliver(ctx context.Context, row queuebox.ClaimedMessage) queuebox.Outcome {
	m := row.OutboxMessage
	route, ok := p.opts.Router.Match(m.Topic)
	if !ok {
		return p.dead("No route matches topic " + m.Topic)
	}
	dest := route.Destination
	pub := p.opts.Publishers[dest.Name]
	if pub == nil {
		return p.dead(noPublisher(dest))
	}
	if row.HeadersErr != nil {
		// No retry can repair the row; an operator corrects the column and
		// requeues it.
		return p.dead("Row cannot be delivered: " + row.HeadersErr.Error())
	}
	body, outcome, ok := p.transform(ctx, route, m)
	if !ok {
		return outcome
	}
	start := time.Now()
	err := pub.Publish(ctx, queuebox.Delivery{
		Message:             m,
		Body:                body,
		RoutingKeyTemplate:  route.Config.RoutingKeyTemplate,
		MissingFieldDefault: route.Config.RoutingKeyMissingFieldDefault,
	})
	p.opts.Metrics.Publish.Since(start, dest.Kind)
	p.published.Store(dest.Name, true)
	if err != nil {
		p.opts.Metrics.DestinationMessages.WithLabelValues(dest.Name, "failure").Inc()
		reason := fmt.Sprintf("Publish to %s failed: %v", dest.Name, err)
		if errors.Is(err, queuebox.ErrUndeliverable) {
			// No attempt can succeed: retrying would only burn them.
			return p.dead(reason)
		}
		return p.failure(m, reason)
	}
	p.opts.Metrics.DestinationMessages.WithLabelValues(dest.Name, "success").Inc()
	return queuebox.Sent()
}

// transform runs the route and destination transforms. ok is false when a
// transform decided the outcome (Fail or Dead).
func (p *Poller) transform(ctx context.Context, route Route, m *queuebox.OutboxMessage) ([]byte, queuebox.Outcome, bool) {
	if p.opts.Transforms == nil {
		return m.Payload, queuebox.Outcome{}, true
	}
	body, skipped, failure := p.opts.Transforms.Apply(ctx, route, m)
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
		return nil, p.dead(reason), false
	}
	return nil, p.failure(m, reason), false
}
