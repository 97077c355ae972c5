package queuebox

import (
	"context"
	"time"
)

// renewLoop renews the lease of every held row each third of the lease,
// until ctx is cancelled.
func (r *runner) renewLoop(ctx context.Context) {
	t := time.NewTicker(r.w.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.mu.Lock()
			rows := make([]*row, 0, len(r.held))
			for _, rw := range r.held {
				rows = append(rows, rw)
			}
			r.mu.Unlock()
			for _, rw := range rows {
				if ctx.Err() != nil {
					return
				}
				r.renew(ctx, rw)
			}
		}
	}
}

// renew renews one lease. A renewal that changes no row lost the lease:
// the handler's context is cancelled. A renewal that fails keeps the
// handler running while the last lease may still hold.
func (r *runner) renew(ctx context.Context, rw *row) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.finishing || rw.ctx.Err() != nil {
		return
	}
	started := time.Now()
	rctx, cancel := context.WithTimeout(ctx, r.w.lease/3)
	defer cancel()
	ok, err := r.w.store.renewLease(rctx, rw.c)
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return
		}
		if time.Since(rw.renewedAt) >= r.w.lease {
			r.w.log.warn("could not renew the lease before it ran out: cancelling the handler", r.fields(rw.c.msg, "err", err)...)
			rw.cancel(errLeaseLost)
			return
		}
		r.w.log.warn("renew the lease", r.fields(rw.c.msg, "err", err)...)
	case !ok:
		rw.cancel(errLeaseLost)
	default:
		rw.renewedAt = started
	}
}

// finish stops the renewals of the row, waiting for one in flight.
func (rw *row) finish() {
	rw.mu.Lock()
	rw.finishing = true
	rw.mu.Unlock()
}
