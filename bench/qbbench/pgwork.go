package main

import (
	"context"
	"fmt"
	"time"
)

// benchAppName is the application_name of the bench's own pool.
const benchAppName = "qbbench"

// pgWork is what PostgreSQL's cumulative statistics count for one bench
// database: its committed transactions, and the row updates of the
// outbox table with those that were HOT (heap-only: no index touched).
// Read before and after a drain, the difference says how many commits
// and row versions a delivered row cost, the figures issue 42 compares
// between queuebox-deliver and the hand-written relay. The bench's own
// polling commits too (about 20 a second), so commits are an upper bound.
type pgWork struct{ commits, updates, hot int64 }

// minus returns w less an earlier reading.
func (w pgWork) minus(o pgWork) pgWork {
	return pgWork{commits: w.commits - o.commits, updates: w.updates - o.updates, hot: w.hot - o.hot}
}

// per100 formats the work per 100 rows.
func (w pgWork) per100(rows int) string {
	if rows <= 0 {
		return ""
	}
	f := func(n int64) float64 { return 100 * float64(n) / float64(rows) }
	return fmt.Sprintf("%.1f commits, %.0f outbox row updates (%.0f HOT)", f(w.commits), f(w.updates), f(w.hot))
}

// work reads the statistics. Statistics reach the shared counters when
// a backend flushes them, at the latest when it exits, so after a drain
// call settle first.
func (d *benchDB) work(ctx context.Context) (pgWork, error) {
	var w pgWork
	err := d.Store.Pool.QueryRow(ctx, `
		SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),
		       coalesce((SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'outbox'), 0),
		       coalesce((SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'outbox'), 0)`).
		Scan(&w.commits, &w.updates, &w.hot)
	return w, err
}

// settle waits, up to 5 s, until no backend but the bench's own pool is
// connected to the database (the stopped processes' backends have exited
// and so flushed their statistics), then has this pool's backends flush
// theirs by reading through a fresh snapshot.
func (d *benchDB) settle(ctx context.Context) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var others int
		err := d.Store.Pool.QueryRow(ctx, `
			SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND backend_type = 'client backend'
			  AND application_name IS DISTINCT FROM $1`, benchAppName).
			Scan(&others)
		if err != nil {
			return err
		}
		if others == 0 {
			return d.exec(ctx, `SELECT pg_stat_clear_snapshot()`)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d backends still connected to %s 5 s after the drain's processes stopped", others, d.Name)
		}
		if err := sleepCtx(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// drainWork waits for settle and returns the work since before.
func (d *benchDB) drainWork(ctx context.Context, before pgWork) (pgWork, error) {
	if err := d.settle(ctx); err != nil {
		return pgWork{}, err
	}
	after, err := d.work(ctx)
	return after.minus(before), err
}
