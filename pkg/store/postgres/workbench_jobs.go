package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/wbsql"
)

// JobCreate implements queuebox.WorkbenchStore.
func (w *Workbench) JobCreate(ctx context.Context, f queuebox.MessageFilter, matched int64) (queuebox.ReplayJob, error) {
	f, _ = wbsql.FinalOnly(f)
	stmt, err := w.stmt("wb_job_create", queuebox.MessageFilter{Table: f.Table}, false)
	if err != nil {
		return queuebox.ReplayJob{}, err
	}
	filter, err := json.Marshal(f)
	if err != nil {
		return queuebox.ReplayJob{}, err
	}
	args := pgx.NamedArgs{"table_name": string(f.Table), "filter": string(filter), "matched": matched}
	job, err := w.queryJob(ctx, stmt, args)
	if err != nil {
		return job, fmt.Errorf("create replay job: %w", err)
	}
	return job, nil
}

// JobClaim implements queuebox.WorkbenchStore.
func (w *Workbench) JobClaim(ctx context.Context, lease time.Duration) (queuebox.JobLease, bool, error) {
	var l queuebox.JobLease
	stmt, err := w.stmt("wb_job_claim", queuebox.MessageFilter{Table: queuebox.TableOutbox}, false)
	if err != nil {
		return l, false, err
	}
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, stmt, pgx.NamedArgs{"lease_ms": lease.Milliseconds()}).Scan(&l.JobID, &l.Token)
	})
	if errors.Is(err, errNotFound) {
		return l, false, nil
	}
	if err != nil {
		return l, false, fmt.Errorf("claim replay job: %w", err)
	}
	return l, true, nil
}

// JobStep implements queuebox.WorkbenchStore.
func (w *Workbench) JobStep(ctx context.Context, l queuebox.JobLease, batch int, lease time.Duration) (queuebox.ReplayJob, error) {
	job, err := w.JobGet(ctx, l.JobID)
	if err != nil {
		return job, err
	}
	f, ok := wbsql.FinalOnly(job.Filter)
	if !ok {
		// No final state asked for: an empty id list selects nothing, and
		// the empty walk ends the job. (An empty id or topic list renders
		// its condition and selects nothing by itself.)
		f.States, f.IDs = f.Table.FinalStates(), []string{}
	}
	stmt, err := w.stmt("wb_job_step", f, false)
	if err != nil {
		return job, err
	}
	args := filterArgs(f)
	args["job"], args["token"], args["batch"], args["lease_ms"] = l.JobID, l.Token, batch, lease.Milliseconds()
	if f.Backfill && f.Destination != "" {
		err = w.withBackfillLock(ctx, f.Destination, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, stmt, args)
			if err != nil {
				return err
			}
			job, err = pgx.CollectExactlyOneRow(rows, scanJob)
			return err
		})
	} else {
		job, err = w.queryJob(ctx, stmt, args)
	}
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
	stmt, err := w.stmt("wb_job_fail", queuebox.MessageFilter{Table: queuebox.TableOutbox}, false)
	if err != nil {
		return err
	}
	n, err := w.db.execCount(ctx, once, "fail replay job", stmt,
		pgx.NamedArgs{"job": l.JobID, "token": l.Token, "error": reason})
	if err == nil && n == 0 {
		return queuebox.ErrLeaseLost
	}
	return err
}

// JobGet implements queuebox.WorkbenchStore.
func (w *Workbench) JobGet(ctx context.Context, id string) (queuebox.ReplayJob, error) {
	stmt, err := w.stmt("wb_job_get", queuebox.MessageFilter{Table: queuebox.TableOutbox}, false)
	if err != nil {
		return queuebox.ReplayJob{}, err
	}
	job, err := w.queryJob(ctx, stmt, pgx.NamedArgs{"id": id})
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
	stmt, err := w.stmt("wb_job_list", queuebox.MessageFilter{Table: queuebox.TableOutbox}, false)
	if err != nil {
		return nil, err
	}
	var jobs []queuebox.ReplayJob
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, stmt, pgx.NamedArgs{"limit": limit})
		if err != nil {
			return err
		}
		jobs, err = pgx.CollectRows(rows, scanJob)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list replay jobs: %w", err)
	}
	return jobs, nil
}

func (w *Workbench) queryJob(ctx context.Context, stmt string, args pgx.NamedArgs) (queuebox.ReplayJob, error) {
	var job queuebox.ReplayJob
	err := w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, stmt, args)
		if err != nil {
			return err
		}
		job, err = pgx.CollectExactlyOneRow(rows, scanJob)
		return err
	})
	return job, err
}

// scanJob scans the columns of wb_job_columns.
func scanJob(r pgx.CollectableRow) (queuebox.ReplayJob, error) {
	var job queuebox.ReplayJob
	var table, filter string
	err := r.Scan(&job.ID, &table, &filter, &job.Matched, &job.Moved, &job.Done, &job.Error, &job.CreatedAt, &job.FinishedAt)
	if err != nil {
		return job, err
	}
	return job, wbsql.DecodeJobFilter(&job, table, filter)
}
