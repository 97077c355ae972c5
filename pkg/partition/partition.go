// Package partition keeps the time partitions of a partitioned outbox or
// inbox ready ahead of now: queuebox-deliver keeps the outbox's,
// queuebox-relay the inbox's. Replicas of a role share the work through
// the store's maintenance lock, so one creates a partition and the others
// find it made. Retention drops old partitions (package retention); this
// package only creates them.
package partition

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Bounds of the time between two maintenance runs. A run is cheap (a
// catalog read when nothing is missing), and a partition is premade at
// least one interval ahead, so a quarter of the interval leaves several
// runs to create each one.
const (
	minEvery = 10 * time.Second
	maxEvery = 10 * time.Minute
)

// Job keeps the partitions of one table. It implements the component
// contract of package run. It is not safe to Run twice at once.
type Job struct {
	table  queuebox.Table
	store  queuebox.PartitionStore
	every  time.Duration
	log    *slog.Logger
	failed atomic.Bool
}

// New returns the job of table on store; interval is the partition
// interval (database.partitioning.interval), from which the job derives
// how often it runs.
func New(table queuebox.Table, store queuebox.PartitionStore, interval time.Duration, log *slog.Logger) *Job {
	return &Job{
		table: table, store: store, every: min(max(interval/4, minEvery), maxEvery),
		log: log.With("component", "partitions-"+string(table)),
	}
}

// Name implements run.Component.
func (j *Job) Name() string { return "partitions-" + string(j.table) }

// Run maintains at once and then on its period until ctx ends; a failed
// run is tried again sooner, doubling from minEvery up to the period. It
// returns nil when ctx ends.
func (j *Job) Run(ctx context.Context) error {
	retry := backoff.Doubling{Min: minEvery, Max: j.every}
	for {
		wait := j.every
		if j.RunOnce(ctx) {
			retry.Reset()
		} else {
			wait = retry.Next()
		}
		if !backoff.Sleep(ctx, wait) {
			return nil
		}
	}
}

// RunOnce runs one maintenance and reports whether it succeeded; a run
// that found the lock taken by another replica succeeded.
func (j *Job) RunOnce(ctx context.Context) bool {
	created, owner, err := j.store.PartitionsMaintain(ctx, j.table)
	j.failed.Store(err != nil)
	switch {
	case err != nil && ctx.Err() == nil:
		j.log.Error("partition maintenance failed", "table", j.table, "err", err)
		return false
	case len(created) > 0:
		j.log.Info("partitions created", "table", j.table, "partitions", created)
	case !owner:
		j.log.Debug("partition maintenance runs in another replica", "table", j.table)
	}
	return err == nil
}

// Check is the health check of the job: down after a failed run, up
// again after the next run that succeeds. An insert never waits for a
// partition (the default partition takes it), so a failing job degrades
// retention and speed, not delivery.
func (j *Job) Check(context.Context) error {
	if j.failed.Load() {
		return errors.New("the last maintenance of the " + string(j.table) + " partitions failed")
	}
	return nil
}
