// Package retention runs the cleanup of final rows: sent and dead outbox
// rows and the old attempts of the delivery ledger in queuebox-deliver,
// processed and dead inbox rows in queuebox-relay. It never deletes a row
// that waits or runs.
package retention

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/metrics"
)

// Deleter deletes up to batch rows and returns how many went.
type Deleter func(ctx context.Context, batch int) (int64, error)

// Metrics are the cleanup families, labelled by table.
type Metrics struct {
	Deleted  *prometheus.CounterVec
	Duration *metrics.Timer
	LastRun  *prometheus.GaugeVec
}

// NewMetrics registers the cleanup families on reg, or returns the ones
// already there: the outbox job and the inbox job of one process (relay
// and deliver in one queuebox) count into the same families, told apart
// by the table label.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	return &Metrics{
		Deleted: metrics.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queuebox_cleanup_messages_deleted_total", Help: "Rows the retention cleanup deleted, per table.",
		}, []string{"table"})),
		LastRun: metrics.MustRegister(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "queuebox_cleanup_last_run_timestamp", Help: "Unix time in seconds of the last cleanup run, per table.",
		}, []string{"table"})),
		Duration: metrics.NewTimer(reg, "queuebox_cleanup_duration_seconds", "Time of one cleanup run, per table.", "table"),
	}
}

// Job cleans one table on its interval. It implements the component
// contract of package run.
type Job struct {
	Table    string // the label: outbox, inbox or ledger
	Interval time.Duration
	Batch    int
	// Steps run in order each cycle; each deletes in batches until a
	// batch comes back short.
	Steps   []Deleter
	Metrics *Metrics
	Logger  *slog.Logger
	// RetryDelay is the first pause before a failed cycle runs again,
	// doubling up to maxRetryDelay; zero means defaultRetryDelay. A failed
	// cycle marks the component down, so it must not wait a whole Interval
	// (an hour by default) to find the database back.
	RetryDelay time.Duration

	failing atomic.Bool
}

const (
	defaultRetryDelay = 5 * time.Second
	maxRetryDelay     = time.Minute
)

// Name implements run.Component.
func (j *Job) Name() string { return "retention-" + j.Table }

// Run cleans at once and then every Interval until ctx ends. A failed
// cycle runs again after RetryDelay, doubling, until one succeeds.
func (j *Job) Run(ctx context.Context) error {
	retry := backoff.Doubling{Min: j.RetryDelay, Max: maxRetryDelay}
	if retry.Min <= 0 {
		retry.Min = defaultRetryDelay
	}
	for {
		wait := j.Interval
		if j.RunOnce(ctx) {
			retry.Reset()
		} else {
			wait = min(wait, retry.Next())
		}
		if !backoff.Sleep(ctx, wait) {
			return nil
		}
	}
}

// RunOnce runs one cleanup cycle, records its metrics and reports whether
// it succeeded.
func (j *Job) RunOnce(ctx context.Context) bool {
	start := time.Now()
	var total int64
	var failed error
	for _, step := range j.Steps {
		n, err := drain(ctx, step, j.Batch)
		total += n
		if err != nil {
			failed = err
			break
		}
	}
	j.Metrics.Duration.Since(start, j.Table)
	j.Metrics.LastRun.WithLabelValues(j.Table).Set(float64(time.Now().Unix()))
	j.Metrics.Deleted.WithLabelValues(j.Table).Add(float64(total))
	j.failing.Store(failed != nil)
	if failed != nil && ctx.Err() == nil {
		j.Logger.Error("retention cleanup failed", "table", j.Table, "deleted", total, "err", failed)
		return false
	}
	if total > 0 {
		j.Logger.Info("retention cleanup", "table", j.Table, "deleted", total, "took_ms", time.Since(start).Milliseconds())
	}
	return failed == nil
}

func drain(ctx context.Context, step Deleter, batch int) (int64, error) {
	var total int64
	for ctx.Err() == nil {
		n, err := step(ctx, batch)
		total += n
		if err != nil || n < int64(batch) {
			return total, err
		}
	}
	return total, nil
}

// Check is the health check of the retention-service component.
func (j *Job) Check(context.Context) error {
	if j.failing.Load() {
		return errors.New("the last cleanup of " + j.Table + " failed")
	}
	return nil
}
