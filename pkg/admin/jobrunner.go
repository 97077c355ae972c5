package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// JobRunner runs the replay jobs that POST /admin/replay records: every
// process that serves the admin routes runs one. It claims an unfinished
// job whose lease is free or expired (its process died), moves its rows
// ReplayBatchRows at a time, each batch with the progress and a renewed
// lease in one transaction, and lets the job go when it is done. Two
// runners never run one job: the lease is the fence of every batch. It
// has the component contract of package run.
type JobRunner struct {
	store queuebox.WorkbenchStore
	log   *slog.Logger
	// Lease is how long a runner holds a job without a batch; another
	// process takes the job over after it.
	Lease time.Duration
	// Poll is the wait between looks for a job when none waits.
	Poll time.Duration
	// MaxFailedSteps is how many batches of one job may fail in a row
	// before the runner ends the job with the last error: a job that
	// cannot move on (a statement the database refuses every time) shows
	// as failed in GET /admin/replay/{job} instead of being claimed again
	// forever.
	MaxFailedSteps int

	// failed counts the batches of each job that failed in a row, across
	// claims; only Run's goroutine uses it.
	failed map[string]int
}

// The defaults of a JobRunner.
const (
	DefaultJobLease          = 30 * time.Second
	DefaultJobPoll           = time.Second
	DefaultJobMaxFailedSteps = 5
)

// NewJobRunner returns the runner of the jobs of store.
func NewJobRunner(store queuebox.WorkbenchStore, log *slog.Logger) *JobRunner {
	return &JobRunner{store: store, log: log, Lease: DefaultJobLease, Poll: DefaultJobPoll,
		MaxFailedSteps: DefaultJobMaxFailedSteps, failed: map[string]int{}}
}

// Name is the component name.
func (r *JobRunner) Name() string { return "admin-replay-jobs" }

// Run looks for jobs until ctx ends, then returns nil. A failed statement
// is logged and tried again at the next look; a job stays the runner's
// only while its lease lives, so a runner that stops mid-job leaves it to
// the next claim once the lease runs out.
func (r *JobRunner) Run(ctx context.Context) error {
	t := time.NewTicker(r.Poll)
	defer t.Stop()
	for {
		for r.runOne(ctx) {
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// runOne claims one job and runs it to its end; it reports whether it
// found one.
func (r *JobRunner) runOne(ctx context.Context) bool {
	l, ok, err := r.store.JobClaim(ctx, r.Lease)
	if err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			r.log.Error("claim replay job", "err", err)
		}
		return false
	}
	for ctx.Err() == nil {
		job, err := r.store.JobStep(ctx, l, ReplayBatchRows, r.Lease)
		switch {
		case errors.Is(err, queuebox.ErrLeaseLost):
			r.log.Warn("replay job lease lost; another process runs it", "job", l.JobID)
			return true
		case err != nil:
			if ctx.Err() == nil {
				r.stepFailed(ctx, l, err)
			}
			// The lease runs out and the job is claimed again; nothing of
			// this batch moved if it did not commit.
			return false
		case job.Done:
			delete(r.failed, l.JobID)
			r.log.Info("replay job done", "job", job.ID, "table", string(job.Filter.Table), "matched", job.Matched, "moved", job.Moved)
			return true
		default:
			delete(r.failed, l.JobID)
		}
	}
	return false
}

// stepFailed logs a failed batch and, at the MaxFailedSteps-th in a row,
// ends the job with its error. Ending it needs the lease, which a failed
// batch leaves to the runner until it runs out; when that write fails too
// (the database is away), the job stays open and the next claim counts on.
func (r *JobRunner) stepFailed(ctx context.Context, l queuebox.JobLease, err error) {
	if r.failed == nil {
		r.failed = map[string]int{}
	}
	r.failed[l.JobID]++
	n := r.failed[l.JobID]
	r.log.Error("replay job batch", "job", l.JobID, "failed_in_a_row", n, "err", err)
	if r.MaxFailedSteps <= 0 || n < r.MaxFailedSteps {
		return
	}
	reason := fmt.Sprintf("stopped after %d failed batches in a row; the last: %v", n, err)
	if ferr := r.store.JobFail(ctx, l, reason); ferr != nil {
		r.log.Error("end failed replay job", "job", l.JobID, "err", ferr)
		return
	}
	delete(r.failed, l.JobID)
	r.log.Error("replay job failed", "job", l.JobID, "reason", reason)
}
