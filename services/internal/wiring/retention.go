// Package wiring maps the configuration onto the options of the library
// packages that more than one role wires. Like services/*/wire.go, and
// unlike the library packages, it reads pkg/config.
package wiring

import (
	"time"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/retention"
)

// Retention maps the retention block of one table (retention.outbox or
// retention.inbox) onto the options of its cleanup job.
func Retention(p config.RetentionPolicy) retention.Options {
	opts := retention.Options{Policy: p.Policy, Interval: p.CleanupInterval.D, BatchSize: p.BatchSize}
	if p.MaxAge != nil {
		opts.MaxAge = p.MaxAge.D
	}
	if p.MaxCount != nil {
		opts.KeepCount = *p.MaxCount
	}
	return opts
}

// LedgerRetention maps retention.ledger onto the options of the
// delivery ledger's cleanup job.
func LedgerRetention(p config.LedgerRetention) retention.Options {
	return retention.Options{Policy: p.Policy, MaxAge: p.MaxAge.D, Interval: p.CleanupInterval.D, BatchSize: p.BatchSize}
}

// RetentionAges is the max age of each table whose retention deletes by
// age (retention.enabled and policy AGE); a table without one is left
// out.
func RetentionAges(cfg *config.Config) map[queuebox.Table]time.Duration {
	out := map[queuebox.Table]time.Duration{}
	if !cfg.Retention.Enabled {
		return out
	}
	for table, p := range map[queuebox.Table]config.RetentionPolicy{queuebox.TableOutbox: cfg.Retention.Outbox, queuebox.TableInbox: cfg.Retention.Inbox} {
		if p.Policy == config.PolicyAge && p.MaxAge != nil {
			out[table] = p.MaxAge.D
		}
	}
	return out
}
