package sqlserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/wbsql"
)

// jobFilter is the filter the job statements render with: they name no
// row table, so any table does.
var jobFilter = queuebox.MessageFilter{Table: queuebox.TableOutbox}

// JobCreate implements queuebox.WorkbenchStore.
func (w *Workbench) JobCreate(ctx context.Context, f queuebox.MessageFilter, matched int64) (queuebox.ReplayJob, error) {
	f, _ = wbsql.FinalOnly(f)
	stmt, err := w.stmt("wb_job_create", jobFilter, false)
	if err != nil {
		return queuebox.ReplayJob{}, err
	}
	filter, err := json.Marshal(f)
	if err != nil {
		return queuebox.ReplayJob{}, err
	}
	job, err := w.queryJob(ctx, stmt, false, sql.Named("table_name", string(f.Table)),
		sql.Named("filter", string(filter)), sql.Named("matched", matched))
	if err != nil {
		return job, fmt.Errorf("create replay job: %w", err)
	}
	return job, nil
}

// JobClaim implements queuebox.WorkbenchStore.
func (w *Workbench) JobClaim(ctx context.Context, lease time.Duration) (queuebox.JobLease, bool, error) {
	var l queuebox.JobLease
	stmt, err := w.stmt("wb_job_claim", jobFilter, false)
	if err != nil {
		return l, false, err
	}
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, stmt, sql.Named("lease_ms", lease.Milliseconds())).Scan(&l.JobID, &l.Token)
	})
	if errors.Is(err, errNotFound) {
		return l, false, nil
	}
	if err != nil {
		return l, false, fmt.Errorf("claim replay job: %w", err)
	}
	return l, true, nil
}

// JobStep implements queuebox.WorkbenchStore. The step's batch of
// statements runs in one transaction: the job row it locks, the rows it
// moves and the job's new cursor, count and lease commit together.
func (w *Workbench) JobStep(ctx context.Context, l queuebox.JobLease, batch int, lease time.Duration) (queuebox.ReplayJob, error) {
	job, err := w.JobGet(ctx, l.JobID)
	if err != nil {
		return job, err
	}
	f, ok := wbsql.FinalOnly(job.Filter)
	if !ok {
		// No final state asked for: an empty id list selects nothing, and
		// the empty walk ends the job.
		f.States, f.IDs = f.Table.FinalStates(), []string{}
	}
	stmt, err := w.stmt("wb_job_step", f, false)
	if err != nil {
		return job, err
	}
	args := append(filterArgs(f), sql.Named("job", l.JobID), sql.Named("token", l.Token),
		sql.Named("batch", int64(batch)), sql.Named("lease_ms", lease.Milliseconds()))
	job, err = w.queryJob(ctx, stmt, true, args...)
	if errors.Is(err, errNotFound) {
		return job, queuebox.ErrLeaseLost
	}
	if err != nil {
		return job, fmt.Errorf("step replay job %s: %w", l.JobID, err)
	}
	return job, nil
}

// JobFail implements queuebox.WorkbenchStore.
func (w *Workbench) JobFail(ctx context.Context, l queuebox.JobLease, reason string) error {
	stmt, err := w.stmt("wb_job_fail", jobFilter, false)
	if err != nil {
		return err
	}
	n, err := w.db.execCount(ctx, "fail replay job", stmt,
		sql.Named("job", l.JobID), sql.Named("token", l.Token), sql.Named("error", reason))
	if err == nil && n == 0 {
		return queuebox.ErrLeaseLost
	}
	return err
}

// JobGet implements queuebox.WorkbenchStore.
func (w *Workbench) JobGet(ctx context.Context, id string) (queuebox.ReplayJob, error) {
	stmt, err := w.stmt("wb_job_get", jobFilter, false)
	if err != nil {
		return queuebox.ReplayJob{}, err
	}
	job, err := w.queryJob(ctx, stmt, false, sql.Named("id", id))
	if errors.Is(err, errNotFound) {
		return job, queuebox.ErrNotFound
	}
	if err != nil {
		return job, fmt.Errorf("read replay job: %w", err)
	}
	return job, nil
}

// JobList implements queuebox.WorkbenchStore.
func (w *Workbench) JobList(ctx context.Context, limit int) ([]queuebox.ReplayJob, error) {
	stmt, err := w.stmt("wb_job_list", jobFilter, false)
	if err != nil {
		return nil, err
	}
	var jobs []queuebox.ReplayJob
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, stmt, sql.Named("limit", int64(max(limit, 0))))
		if err != nil {
			return err
		}
		jobs, err = collect(rows, scanJob)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list replay jobs: %w", err)
	}
	return jobs, nil
}

// queryJob runs a statement that returns one job row, in a transaction
// when inTx, and reads it; no row is errNotFound.
func (w *Workbench) queryJob(ctx context.Context, stmt string, inTx bool, args ...any) (queuebox.ReplayJob, error) {
	var job queuebox.ReplayJob
	read := func(rows *sql.Rows, err error) error {
		if err != nil {
			return err
		}
		jobs, err := collect(rows, scanJob)
		if err != nil {
			return err
		}
		if len(jobs) == 0 {
			return sql.ErrNoRows
		}
		job = jobs[0]
		return nil
	}
	var err error
	if inTx {
		err = w.db.withTx(ctx, func(ctx context.Context, tx *sql.Tx) error { return read(tx.QueryContext(ctx, stmt, args...)) })
	} else {
		err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error { return read(conn.QueryContext(ctx, stmt, args...)) })
	}
	return job, err
}

// scanJob scans the columns of wb_job_columns.
func scanJob(r *sql.Rows) (queuebox.ReplayJob, error) {
	var job queuebox.ReplayJob
	var table, filter string
	err := r.Scan(&job.ID, &table, &filter, &job.Matched, &job.Moved, &job.Done, &job.Error, &job.CreatedAt, &job.FinishedAt)
	if err != nil {
		return job, err
	}
	if err := wbsql.DecodeJobFilter(&job, table, filter); err != nil {
		return job, err
	}
	job.CreatedAt = job.CreatedAt.UTC()
	if job.FinishedAt != nil {
		*job.FinishedAt = job.FinishedAt.UTC()
	}
	return job, nil
}
