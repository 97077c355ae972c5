package retention

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Outbox builds the outbox cleanup of queuebox-deliver from
// retention.outbox; the caller runs it when retention.enabled is true. AGE
// deletes sent and dead rows older than maxAge; COUNT keeps the newest
// maxCount rows of each of the two states; DISABLED deletes nothing.
func Outbox(rc config.Retention, store queuebox.RetentionStore, reg prometheus.Registerer, log *slog.Logger) *Job {
	p := rc.Outbox
	job := newJob("outbox", p, reg, log)
	switch {
	case p.Policy == config.PolicyAge && p.MaxAge != nil:
		maxAge := p.MaxAge.D
		job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
			return store.OutboxByAge(ctx, maxAge, batch)
		})
	case p.Policy == config.PolicyCount && p.MaxCount != nil:
		keep := *p.MaxCount
		for _, state := range []queuebox.State{queuebox.StateSent, queuebox.StateDead} {
			job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
				return store.OutboxByCount(ctx, state, keep, batch)
			})
		}
	}
	return job
}

// Inbox builds the inbox cleanup of queuebox-relay from retention.inbox;
// the caller runs it when retention.enabled is true. Only AGE deletes
// (processed and dead rows older than maxAge).
func Inbox(rc config.Retention, store queuebox.RetentionStore, reg prometheus.Registerer, log *slog.Logger) *Job {
	p := rc.Inbox
	job := newJob("inbox", p, reg, log)
	if p.Policy == config.PolicyAge && p.MaxAge != nil {
		maxAge := p.MaxAge.D
		job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
			return store.InboxByAge(ctx, maxAge, batch)
		})
	}
	return job
}

func newJob(table string, p config.RetentionPolicy, reg prometheus.Registerer, log *slog.Logger) *Job {
	return &Job{
		Table: table, Interval: p.CleanupInterval.D, Batch: p.BatchSize,
		Metrics: NewMetrics(reg), Logger: log.With("component", "retention-service"),
	}
}
