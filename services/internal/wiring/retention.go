// Package wiring maps the configuration onto the options of the library
// packages that more than one role wires. Like services/*/wire.go, and
// unlike the library packages, it reads pkg/config.
package wiring

import (
	"github.com/alternayte/queuebox/pkg/config"
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
