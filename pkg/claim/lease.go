package claim

import (
	"context"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// renewLoop renews every held lease each third of the lease duration, in
// one statement. A lease that the renewal did not find was lost: the work
// on it is cancelled and the loss reported. After a failed renewal the
// next comes sooner (see renewRetry).
func (l *Loop[T]) renewLoop(ctx context.Context) {
	if l.cfg.LeaseDuration <= 0 {
		return
	}
	timer := time.NewTimer(l.cfg.LeaseDuration / 3)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			// Keep renewing through the drain window: publishes still run.
			l.renewUntilIdle()
			return
		case <-timer.C:
			timer.Reset(l.nextRenewal(l.renewOnce(ctx)))
		}
	}
}

// nextRenewal is the pause before the next renewal: a third of the lease
// after one that was answered, a fifteenth after one that failed. A
// database that went away (a restart, a failover) comes back with the
// leases it had; a renewal that reaches it soon after keeps those that
// have not run out yet, where waiting a third of the lease would let many
// of them expire, and their rows, often published already, would be
// taken and delivered again by another replica.
func (l *Loop[T]) nextRenewal(answered bool) time.Duration {
	if answered {
		return l.cfg.LeaseDuration / 3
	}
	return max(l.cfg.LeaseDuration/15, time.Millisecond)
}

// renewUntilIdle keeps leases alive while a shutdown drains held work:
// until the loop holds nothing or ShutdownTimeout has passed.
func (l *Loop[T]) renewUntilIdle() {
	ticker := time.NewTicker(l.cfg.LeaseDuration / 3)
	defer ticker.Stop()
	deadline := time.NewTimer(l.cfg.ShutdownTimeout)
	defer deadline.Stop()
	idle := l.idleSignal()
	for {
		select {
		case <-idle:
			return
		case <-deadline.C:
			return
		case <-ticker.C:
			ctx, cancel := context.WithTimeout(context.Background(), l.cfg.LeaseDuration/3)
			l.renewOnce(ctx)
			cancel()
		}
	}
}

// renewOnce renews the held leases once and reports false when the
// renewal statement failed.
func (l *Loop[T]) renewOnce(ctx context.Context) bool {
	l.mu.Lock()
	leases := make([]Lease, 0, len(l.held))
	for _, h := range l.held {
		if !h.lost {
			leases = append(leases, h.lease)
		}
	}
	l.mu.Unlock()
	if len(leases) == 0 {
		return true
	}
	// The renewed leases start when the database runs the statement, after
	// it was sent: the send time is the one the local clock may count from.
	sent := time.Now()
	kept, err := l.source.Renew(ctx, leases)
	if err != nil {
		if ctx.Err() == nil {
			l.failed("renew", err)
		}
		l.expireUnrenewed()
		return false
	}
	for _, lease := range leases {
		if kept[lease.ID] {
			l.mu.Lock()
			if h, ok := l.held[lease.ID]; ok && h.lease.Token == lease.Token {
				h.renewed = sent
			}
			l.mu.Unlock()
			continue
		}
		l.mu.Lock()
		h, ok := l.held[lease.ID]
		// Finished between the snapshot and the renewal, replaced by a new
		// claim, or already reported: nothing more to do.
		ok = ok && h.lease.Token == lease.Token && !h.lost
		if ok {
			ok = l.lose(h)
		}
		l.mu.Unlock()
		if ok {
			l.reportLost(lease)
		}
	}
	return true
}

// expireUnrenewed treats as lost every lease that no renewal has found for
// a whole lease duration: after failed renewals it has expired, and
// another worker may own the row. Leases still within their time keep
// their work; the next renewal may succeed.
func (l *Loop[T]) expireUnrenewed() {
	deadline := time.Now().Add(-l.cfg.LeaseDuration)
	var lost []Lease
	l.mu.Lock()
	for _, h := range l.held {
		if !h.lost && h.renewed.Before(deadline) && l.lose(h) {
			lost = append(lost, h.lease)
		}
	}
	l.mu.Unlock()
	for _, lease := range lost {
		l.reportLost(lease)
	}
}

// lose marks a held item lost and says whether the loop reports the loss.
// An async or batch handler that took the item reports it itself: its
// context ends with ErrLeaseLost, or its fenced write finds the row gone.
// A renewal can also miss a row just after its outcome committed and
// before the item is released; the write, not the renewal, then knows
// that nothing was lost. The caller holds l.mu.
func (l *Loop[T]) lose(h *held) (report bool) { return l.loseWith(h, queuebox.ErrLeaseLost) }

// loseWith is lose with the cause that the item's context ends with.
func (l *Loop[T]) loseWith(h *held, cause error) (report bool) {
	h.lost = true
	if h.cancel != nil {
		h.cancel(cause)
	}
	handlerReports := l.async != nil || l.batch != nil
	return !handlerReports || !h.started
}

func (l *Loop[T]) reportLost(lease Lease) {
	l.cfg.Logger.Error("lease lost; the work on the row is cancelled", "loop", l.cfg.Name,
		"message_id", lease.ID)
	if l.cfg.Hooks.Lost != nil {
		l.cfg.Hooks.Lost(lease)
	}
}

// reclaimLoop runs the reclaim step at most once per lease duration / 5;
// Hooks.Reclaimed hears of every step that returned rows.
func (l *Loop[T]) reclaimLoop(ctx context.Context) {
	if l.cfg.LeaseDuration <= 0 {
		return
	}
	interval := max(l.cfg.LeaseDuration/5, 10*time.Millisecond)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		// Like a claim, a reclaim that a shutdown cannot cut short: its
		// statement may commit as the shutdown begins, and the rows it
		// returned must still be logged and counted.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimStatementTimeout)
		n, err := l.source.Reclaim(rctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				l.failed("reclaim", err)
			}
			continue
		}
		if n > 0 {
			l.cfg.Logger.Warn("returned expired claims to pending", "loop", l.cfg.Name, "rows", n)
			if l.cfg.Hooks.Reclaimed != nil {
				l.cfg.Hooks.Reclaimed(n)
			}
			l.Wake()
		}
	}
}
