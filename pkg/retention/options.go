package retention

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The policies of a table, in the letter case of the policy key.
const (
	PolicyAge      = "AGE"      // delete the final rows older than MaxAge
	PolicyCount    = "COUNT"    // keep the newest KeepCount rows of each final state (outbox only)
	PolicyDisabled = "DISABLED" // delete nothing; the job still runs and reports
)

// The defaults of Options, the defaults of the retention keys.
const (
	DefaultInterval  = time.Hour
	DefaultBatchSize = 1000
)

// Options are the cleanup settings of one table.
type Options struct {
	// Policy is PolicyAge, PolicyCount or PolicyDisabled; empty means
	// PolicyDisabled.
	Policy string
	// MaxAge is the age past which AGE deletes a final row; AGE needs it
	// above zero.
	MaxAge time.Duration
	// KeepCount is the rows of each final state COUNT keeps; COUNT needs
	// it above zero.
	KeepCount int
	// Interval is the time between two cleanups (DefaultInterval).
	Interval time.Duration
	// BatchSize is the most rows one delete statement takes
	// (DefaultBatchSize).
	BatchSize int
}

// withDefaults fills the zero settings and checks the policy of table
// against the ones it allows.
func (o Options) withDefaults(table string, allowed ...string) (Options, error) {
	o.Policy = cmp.Or(o.Policy, PolicyDisabled)
	o.Interval = cmp.Or(o.Interval, DefaultInterval)
	o.BatchSize = cmp.Or(o.BatchSize, DefaultBatchSize)
	switch {
	case !slices.Contains(allowed, o.Policy):
		return o, fmt.Errorf("retention %s: policy must be one of %v, got %q", table, allowed, o.Policy)
	case o.Interval < 0 || o.BatchSize < 0:
		return o, fmt.Errorf("retention %s: the interval and the batch size must be above 0", table)
	case o.Policy == PolicyAge && o.MaxAge <= 0:
		return o, fmt.Errorf("retention %s: policy AGE needs a max age above 0", table)
	case o.Policy == PolicyCount && o.KeepCount <= 0:
		return o, fmt.Errorf("retention %s: policy COUNT needs a keep count above 0", table)
	}
	return o, nil
}

// Outbox builds the outbox cleanup of queuebox-deliver; the caller runs it
// when retention is enabled. AGE deletes sent and dead rows older than
// MaxAge, first by dropping whole partitions when store is a
// queuebox.PartitionRetention (a partitioned table), then row by row; COUNT keeps the newest KeepCount rows of each of the two states;
// DISABLED deletes nothing. It returns an error for an unknown policy or a
// policy without its setting.
func Outbox(opts Options, store queuebox.RetentionStore, reg prometheus.Registerer, log *slog.Logger) (*Job, error) {
	opts, err := opts.withDefaults("outbox", PolicyAge, PolicyCount, PolicyDisabled)
	if err != nil {
		return nil, err
	}
	job := newJob("outbox", opts, reg, log)
	switch opts.Policy {
	case PolicyAge:
		if pr, ok := store.(queuebox.PartitionRetention); ok {
			job.Steps = append(job.Steps, func(ctx context.Context, _ int) (int64, error) {
				return pr.OutboxDropPartitions(ctx, opts.MaxAge)
			})
		}
		job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
			return store.OutboxByAge(ctx, opts.MaxAge, batch)
		})
	case PolicyCount:
		for _, state := range []queuebox.State{queuebox.StateSent, queuebox.StateDead} {
			job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
				return store.OutboxByCount(ctx, state, opts.KeepCount, batch)
			})
		}
	}
	return job, nil
}

// Inbox builds the inbox cleanup of queuebox-relay; the caller runs it
// when retention is enabled. Only AGE deletes (processed and dead rows
// older than MaxAge, whole partitions first as in Outbox); COUNT is
// refused.
func Inbox(opts Options, store queuebox.RetentionStore, reg prometheus.Registerer, log *slog.Logger) (*Job, error) {
	opts, err := opts.withDefaults("inbox", PolicyAge, PolicyDisabled)
	if err != nil {
		return nil, err
	}
	job := newJob("inbox", opts, reg, log)
	if opts.Policy == PolicyAge {
		if pr, ok := store.(queuebox.PartitionRetention); ok {
			job.Steps = append(job.Steps, func(ctx context.Context, _ int) (int64, error) {
				return pr.InboxDropPartitions(ctx, opts.MaxAge)
			})
		}
		job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
			return store.InboxByAge(ctx, opts.MaxAge, batch)
		})
	}
	return job, nil
}

// Ledger builds the cleanup of the delivery ledger of queuebox-deliver;
// the caller runs it while the ledger is written, whatever the outbox's
// and the inbox's policies. AGE deletes the attempts that started more
// than MaxAge ago; DISABLED deletes nothing; COUNT is refused. The ledger
// is never partitioned, so it deletes row by row in every database.
func Ledger(opts Options, store queuebox.RetentionStore, reg prometheus.Registerer, log *slog.Logger) (*Job, error) {
	opts, err := opts.withDefaults("ledger", PolicyAge, PolicyDisabled)
	if err != nil {
		return nil, err
	}
	job := newJob("ledger", opts, reg, log)
	if opts.Policy == PolicyAge {
		job.Steps = append(job.Steps, func(ctx context.Context, batch int) (int64, error) {
			return store.LedgerByAge(ctx, opts.MaxAge, batch)
		})
	}
	return job, nil
}

func newJob(table string, opts Options, reg prometheus.Registerer, log *slog.Logger) *Job {
	return &Job{
		Table: table, Interval: opts.Interval, Batch: opts.BatchSize,
		Metrics: NewMetrics(reg), Logger: log.With("component", "retention-service"),
	}
}
