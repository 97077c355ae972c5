package sqlserver

import (
	"context"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/backoff"
)

// read polls the change table from pos until ctx ends or a read fails.
// Each batch is the changes after pos up to the highest LSN of the
// moment; a batch that holds inserts bumps the wake row before offsets.dat
// moves past it, so a crash between the two costs a second wake-up, never
// a lost one. The owner lock session is checked every Heartbeat.
func (r *Runner) read(ctx context.Context, lock Lock, pos LSN) error {
	beat := time.Now()
	for backoff.Sleep(ctx, r.opts.Poll) {
		if time.Since(beat) >= r.opts.Heartbeat {
			if err := lock.Heartbeat(ctx); err != nil {
				return &lockLostError{err}
			}
			beat = time.Now()
		}
		next, err := r.batch(ctx, pos)
		if err != nil {
			return err
		}
		pos = next
	}
	return nil
}

// batch reads the changes after pos once and returns the LSN to read
// after next time.
func (r *Runner) batch(ctx context.Context, pos LSN) (LSN, error) {
	low, high, err := r.conn.Bounds(ctx)
	if err != nil {
		return pos, err
	}
	if high == nil || !pos.Before(high) {
		return pos, nil
	}
	if pos.unset() && low != nil && !low.unset() {
		if pos, err = r.firstLSN(ctx, low, high); err != nil || !pos.Before(high) {
			return pos, err
		}
	}
	if low != nil && pos.Before(low) {
		// Cleanup removed changes after pos before capture read them (an
		// idle table while capture was stopped, or a reader slower than
		// the retention): wake delivery once for whatever they held.
		r.opts.Logger.Warn("the capture position is before the lowest LSN the change table holds; delivery is woken once and reading goes on from the lowest LSN",
			"position", pos.String(), "lowest", low.String())
		if pos, err = r.firstLSN(ctx, low, high); err != nil || !pos.Before(high) {
			return pos, err
		}
	}
	n, err := r.conn.Inserts(ctx, pos, high)
	if err != nil {
		return pos, err
	}
	if n > 0 {
		if err := r.conn.Bump(ctx); err != nil {
			return pos, err
		}
		r.opts.Metrics.Wakeups.Inc()
		r.opts.Metrics.Event(time.Now())
	}
	if err := r.dir.WriteOffset(high.String()); err != nil {
		return pos, fmt.Errorf("record the capture position: %w", err)
	}
	return high, nil
}

// firstLSN moves an unset position (a first start on a database whose
// capture job had logged nothing) to the lowest LSN held: the change
// functions refuse anything before it, and a change logged at it would
// be skipped, so it wakes delivery once instead.
func (r *Runner) firstLSN(ctx context.Context, low, high LSN) (LSN, error) {
	if err := r.conn.Bump(ctx); err != nil {
		return nil, err
	}
	r.opts.Metrics.Wakeups.Inc()
	if !low.Before(high) {
		if err := r.dir.WriteOffset(low.String()); err != nil {
			return nil, fmt.Errorf("record the capture position: %w", err)
		}
	}
	return low, nil
}

// wake bumps the wake row once; a failure is logged (at debug level: the
// first attempt on a new database has no wake table yet) and costs
// latency only, as delivery polls on its own timer.
func (r *Runner) wake(ctx context.Context) {
	if err := r.conn.Bump(ctx); err != nil {
		r.opts.Logger.Debug("wake delivery", "err", err)
		return
	}
	r.opts.Metrics.Wakeups.Inc()
}
