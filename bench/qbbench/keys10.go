package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// tenKeys measures queuebox-deliver on 10 keys with -keys10-rows pending
// rows each: at most 10 rows are in flight (one per key), so the rate
// shows how fast the poller turns a key around. Each run starts the
// binary on the same database, lets it deliver for -keys10-window after
// the first request and stops it; the rate is over the rows that run
// sent, from their first claim to their last finish. The backlog stays
// deep (each run sends a small share of it), so runs are comparable.
func (b *bench) tenKeys(ctx context.Context) error {
	const keys = 10
	db, err := b.srv.create(ctx, "keys10", 4)
	if err != nil {
		return err
	}
	defer db.drop()
	if err := db.insertOutbox(ctx, keys*b.o.keys10Rows, keys); err != nil {
		return err
	}
	var got []float64
	for i := range b.o.runs {
		r, err := b.tenKeysRun(ctx, db)
		if err != nil {
			return err
		}
		got = append(got, r)
		logf("keys10 run %d: %.0f rows/s", i+1, r)
	}
	notes := fmt.Sprintf("%v window; runs %s", b.o.keys10Window, rates(got))
	if b.leftovers > 0 {
		notes += fmt.Sprintf("; %d row(s) left processing by SIGTERM, released", b.leftovers)
	}
	b.rep.add(atLeast(fmt.Sprintf("deliver, 10 keys × %s pending", group(int64(b.o.keys10Rows))),
		median(got), "rows/s", 1000, notes))
	return nil
}

func (b *bench) tenKeysRun(ctx context.Context, db *benchDB) (float64, error) {
	since, err := db.now(ctx)
	if err != nil {
		return 0, err
	}
	b.rc.reset()
	procs, err := b.startDeliver(ctx, db, 1)
	if err != nil {
		return 0, err
	}
	runErr := b.deliverFor(ctx, procs[0], b.o.keys10Window)
	if err := errors.Join(runErr, stopAll(procs...)); err != nil {
		return 0, err
	}
	if err := b.releaseLeftovers(ctx, db); err != nil {
		return 0, err
	}
	w, err := db.outboxWindow(ctx, since)
	if err != nil {
		return 0, err
	}
	if w.Rows == 0 {
		return 0, fmt.Errorf("no row sent within %v", b.o.keys10Window)
	}
	return w.rate(), nil
}

// deliverFor waits for the first request at the receiver, then for
// window, failing when the process exits.
func (b *bench) deliverFor(ctx context.Context, p *proc, window time.Duration) error {
	deadline := time.Now().Add(b.o.drainTimeout)
	for !b.rc.started() {
		if err := p.exited(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no delivery within %v", b.o.drainTimeout)
		}
		if err := sleepCtx(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	end := time.Now().Add(window)
	for time.Now().Before(end) {
		if err := p.exited(); err != nil {
			return err
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// releaseLeftovers checks that the stopped binary left no row processing.
// A row left processing keeps its key blocked until its lease expires
// (outbox.claimTimeoutMs, 5 minutes by default), which would stall the
// next run: the leftovers are reported, counted in the notes, and returned
// to pending as the reclaim step would after the lease.
func (b *bench) releaseLeftovers(ctx context.Context, db *benchDB) error {
	tag, err := db.Store.Pool.Exec(ctx, `
		UPDATE outbox SET state = 'pending', claim_token = NULL, lease_expires_at = NULL
		WHERE state = 'processing'`)
	if err != nil {
		return err
	}
	if n := tag.RowsAffected(); n > 0 {
		b.leftovers += n
		logf("warning: queuebox-deliver left %d row(s) processing after SIGTERM; returned them to pending", n)
	}
	return nil
}
