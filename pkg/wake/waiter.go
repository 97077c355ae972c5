package wake

import (
	"context"
	"time"
)

// waiter is the Run loop's state: the commits still waiting to be
// visible, the retry backoff, and the failure streak of the log.
type waiter struct {
	n       *Notifier
	waiting []uint32
	since   time.Time // when the oldest of waiting started to wait
	backoff time.Duration
	failing bool
}

// settle adds xids to the waiting commits, asks the database which of
// them still run, and says whether a NOTIFY is due: some commit became
// visible, the check failed (wake now; better an empty claim than a late
// one) or the commits waited past maxVisibilityWait.
func (w *waiter) settle(ctx context.Context, xids []uint32) (notify bool) {
	if len(w.waiting) == 0 && len(xids) > 0 {
		w.since = time.Now()
	}
	all := append(w.waiting, xids...)
	if len(all) == 0 {
		return false
	}
	sctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	running, err := w.n.db.Running(sctx, all)
	cancel()
	switch {
	case err != nil && ctx.Err() != nil:
		return false
	case err != nil:
		w.failed(err)
		w.clear()
		return true
	case len(running) > 0 && time.Since(w.since) > maxVisibilityWait:
		w.n.log.Warn("committed outbox transactions stayed invisible; waking delivery without waiting for them",
			"transactions", len(running), "waited_ms", time.Since(w.since).Milliseconds())
		w.clear()
		return true
	}
	notify = len(running) < len(all)
	w.waiting = append(w.waiting[:0], running...)
	switch {
	case len(w.waiting) == 0:
		w.backoff = 0
	case notify || w.backoff == 0:
		w.backoff = firstVisibilityRetry
	default:
		w.backoff = min(2*w.backoff, maxVisibilityRetry)
	}
	return notify
}

func (w *waiter) clear() {
	w.waiting = w.waiting[:0]
	w.backoff = 0
}

func (w *waiter) failed(err error) {
	if !w.failing {
		w.n.log.Warn("wake-up notification failed; deliver replicas wait for their reconciliation timer",
			"channel", w.n.channel, "err", err)
	}
	w.failing = true
}

func (w *waiter) succeeded() {
	if w.failing {
		w.n.log.Info("wake-up notifications are sent again", "channel", w.n.channel)
	}
	w.failing = false
}
