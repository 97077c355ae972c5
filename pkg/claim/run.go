package claim

import (
	"context"
	"sync"
	"time"
)

// Run claims and works until ctx is cancelled. It then stops claiming,
// lets the items it holds finish for up to ShutdownTimeout (renewing
// their leases meanwhile), cancels the rest (they stay processing and the
// reclaim step of any replica returns them after their lease expires) and
// returns nil. A claim in flight when ctx ends is not cut short: its rows
// are worked in the drain window. Handlers never see ctx itself (see
// Handler).
//
// Call Run once. It blocks until every goroutine it started has returned,
// handlers included; an async item whose done never comes holds it up
// to ShutdownTimeout.
func (l *Loop[T]) Run(ctx context.Context) error {
	// Work gets its own context so a shutdown does not cancel publishes in
	// flight; it is cancelled only after the drain window.
	workCtx, cancelWork := context.WithCancel(context.Background())
	defer cancelWork()
	queue := make(chan []T, l.capacity())
	var workers sync.WaitGroup
	for range l.cfg.Concurrency {
		workers.Add(1)
		go func() {
			defer workers.Done()
			l.work(workCtx, queue)
		}()
	}
	var background sync.WaitGroup
	background.Add(2)
	go func() { defer background.Done(); l.renewLoop(ctx) }()
	go func() { defer background.Done(); l.reclaimLoop(ctx) }()

	l.claimLoop(ctx, queue)
	close(queue)
	l.drain(&workers, cancelWork)
	background.Wait()
	return nil
}

// drain waits up to ShutdownTimeout for the workers to end and every held
// item to be released, then cancels the work still running.
func (l *Loop[T]) drain(workers *sync.WaitGroup, cancelWork context.CancelFunc) {
	workersDone := make(chan struct{})
	go func() { workers.Wait(); close(workersDone) }()
	timer := time.NewTimer(l.cfg.ShutdownTimeout)
	defer timer.Stop()
	select {
	case <-workersDone:
		// Async items end when their outcome is written, after the worker.
		select {
		case <-l.idleSignal():
			return
		case <-timer.C:
			if l.Held() == 0 {
				return
			}
		}
	case <-timer.C:
	}
	l.cfg.Logger.Warn("shutdown timeout passed with work in flight; it stays processing until its lease expires",
		"loop", l.cfg.Name, "held", l.Held())
	cancelWork()
	<-workersDone
}

// claimLoop claims whenever there is room, a wake arrives, the poll
// interval passes or, after a claim that left it idle, the source's next
// waiting row falls due (see NextDuer). A full claim is followed by
// another at once while room remains, so a backlog drains without waiting
// for ticks. Lease deadlines need no timer here: the reclaim step
// (reclaimLoop) runs each fifth of the lease and wakes the loop whenever it
// returns expired rows to pending.
func (l *Loop[T]) claimLoop(ctx context.Context, queue chan<- []T) {
	ticker := time.NewTicker(l.cfg.PollInterval)
	defer ticker.Stop()
	due := time.NewTimer(l.cfg.PollInterval)
	due.Stop()
	defer due.Stop()
	for {
		// Each claim answers for the rows due until then; the timer of an
		// earlier one is stale.
		due.Stop()
		limit := min(l.cfg.BatchSize, l.capacity()-l.Held())
		// Claim while the workers would soon run dry, not per freed row: a
		// claim per freed row costs a statement per row under a backlog.
		if limit > 0 && l.queued.Load() < l.lowWater() && ctx.Err() == nil {
			started := time.Now()
			items, err := l.claim(ctx, limit)
			if err != nil {
				l.failed("claim", err)
			}
			l.enqueue(queue, items, started)
			if len(items) > 0 && len(items) == limit && ctx.Err() == nil {
				continue
			}
			if err == nil {
				l.armNextDue(ctx, due, started)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		case <-ticker.C:
		case <-due.C:
		}
	}
}

// nextDueFloor is the shortest wait for a waiting row: a row that falls
// due at once is claimed a few milliseconds later, so a row that stays
// unclaimable (its key is held) or a store clock that stands still cannot
// spin the loop.
const nextDueFloor = 5 * time.Millisecond

// nextDueWorthIt is the shortest poll interval for which the loop asks
// for the next waiting row: with a poll tick this close, a retry is never
// late by more than a tick, and the question would only add a statement
// per idle poll.
const nextDueWorthIt = time.Second

// armNextDue sets due to fire when the source's next waiting row falls
// due, if that comes before the next poll tick. A source without
// NextDuer, a failed answer or no waiting row leaves the poll interval as
// the longest wait. claimed is when the claim before it started: a row
// that fell due after that moment was not there for the claim to take,
// so it is claimed at once instead of at the next tick.
func (l *Loop[T]) armNextDue(ctx context.Context, due *time.Timer, claimed time.Time) {
	if l.nextDue == nil || ctx.Err() != nil || l.cfg.PollInterval < nextDueWorthIt {
		return
	}
	nctx, cancel := context.WithTimeout(ctx, min(l.cfg.PollInterval, claimStatementTimeout))
	defer cancel()
	delay, ok, err := l.nextDue.NextDue(nctx, time.Since(claimed))
	if err != nil {
		// Not a claim failure: health and hooks stay as the claim left
		// them. An answer slower than the poll interval is no answer: the
		// tick comes first anyway.
		if ctx.Err() == nil && nctx.Err() == nil {
			l.failures.record(l.cfg.Logger, l.cfg.Name, "next due", err)
		}
		return
	}
	if ok && delay < l.cfg.PollInterval {
		due.Reset(max(delay, nextDueFloor))
	}
}

// capacity is the most items the loop holds at once. An item loop holds
// up to two batches: the one being published and written, and the next,
// claimed ahead so that workers do not wait for a claim and every claim
// can take a whole batch. A batch loop works one batch at a time.
func (l *Loop[T]) capacity() int {
	if l.batch != nil {
		return l.cfg.BatchSize
	}
	return 2 * l.cfg.BatchSize
}

// lowWater is the number of queued units under which the loop claims: an
// item loop claims once half a batch (or the concurrency, if larger) is
// left to start, which covers the time a claim takes; a batch loop claims
// once its batch is taken.
func (l *Loop[T]) lowWater() int64 {
	if l.batch != nil {
		return 1
	}
	return int64(max(l.cfg.Concurrency, l.cfg.BatchSize/2))
}

// enqueue holds and queues the items of one claim that started at
// claimed: as one unit for a batch loop, one unit per item otherwise.
func (l *Loop[T]) enqueue(queue chan<- []T, items []T, claimed time.Time) {
	if len(items) == 0 {
		return
	}
	if l.cfg.Hooks.Claimed != nil {
		l.cfg.Hooks.Claimed(len(items))
	}
	for _, it := range items {
		l.hold(it, claimed)
	}
	if l.batch != nil {
		l.queued.Add(1)
		queue <- items
		return
	}
	for _, it := range items {
		l.queued.Add(1)
		queue <- []T{it}
	}
}

// claimStatementTimeout bounds one claim statement.
const claimStatementTimeout = 30 * time.Second

// claim runs one claim that a shutdown cannot cut short: the statement may
// already have committed on the server when ctx ends, and rows whose
// answer was dropped would stay processing for a whole lease. The rows it
// returns are queued and worked through the drain window.
func (l *Loop[T]) claim(ctx context.Context, room int) ([]T, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimStatementTimeout)
	defer cancel()
	start := time.Now()
	items, err := l.source.Claim(cctx, room)
	if took := time.Since(start); err == nil && l.cfg.LeaseDuration > 0 && took > l.cfg.LeaseDuration/2 {
		l.slowClaim(took, len(items))
	}
	if h := l.cfg.Health; h != nil {
		if err != nil {
			h.Down(err)
		} else {
			h.Up()
		}
	}
	return items, err
}

// hold records an item of a claim that started at claimed. A row that is
// still held under an older token was reclaimed after its lease expired:
// the old token can write nothing more, so its work is cancelled as a
// lost lease.
func (l *Loop[T]) hold(it T, claimed time.Time) {
	lease := it.Lease()
	l.mu.Lock()
	prev, replaced := l.held[lease.ID]
	replaced = replaced && prev.lease.Token != lease.Token && !prev.lost
	if replaced {
		replaced = l.lose(prev)
	}
	l.held[lease.ID] = &held{lease: lease, renewed: claimed}
	l.mu.Unlock()
	if replaced {
		l.reportLost(prev.lease)
	}
}

// release forgets an item once its work ended, unless a newer claim of the
// same row replaced it.
func (l *Loop[T]) release(lease Lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.held[lease.ID]; ok && h.lease.Token == lease.Token {
		delete(l.held, lease.ID)
	}
	if len(l.held) == 0 && l.idle != nil {
		close(l.idle)
		l.idle = nil
	}
}

// work runs queued units: single items (with a context that a lost lease
// cancels) or whole batches.
func (l *Loop[T]) work(workCtx context.Context, queue <-chan []T) {
	for unit := range queue {
		l.queued.Add(-1)
		switch {
		case l.batch != nil:
			l.startBatch(unit)
			l.batch(workCtx, unit)
			l.finish(unit...)
		case l.async != nil:
			l.runAsync(workCtx, unit[0])
		default:
			l.runItem(workCtx, unit[0])
			l.finish(unit[0])
		}
	}
}

// startBatch marks the items of a batch as handed to the batch handler:
// from then on its fenced writes, not a renewal, tell a lost lease (a
// renewal may also miss a row whose forward has just committed).
func (l *Loop[T]) startBatch(items []T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, it := range items {
		lease := it.Lease()
		if h, ok := l.held[lease.ID]; ok && h.lease.Token == lease.Token {
			h.started = true
		}
	}
}

// finish releases items whose work ended and asks for a claim: the rows
// are final or back to pending, so the next row of their key or aggregate
// may be due now.
func (l *Loop[T]) finish(items ...T) {
	for _, it := range items {
		l.release(it.Lease())
	}
	l.Wake()
}

func (l *Loop[T]) runAsync(workCtx context.Context, it T) {
	ctx, cancel := context.WithCancelCause(workCtx)
	var once sync.Once
	done := func() {
		once.Do(func() {
			cancel(nil)
			l.finish(it)
		})
	}
	if !l.adopt(it, cancel) {
		done()
		return
	}
	l.async(ctx, it, done)
}

func (l *Loop[T]) runItem(workCtx context.Context, it T) {
	ctx, cancel := context.WithCancelCause(workCtx)
	defer cancel(nil)
	if l.adopt(it, cancel) {
		l.handler(ctx, it)
	}
}

// adopt attaches the cancel of an item's work to its held entry. It
// reports false for a lease lost or replaced while the item waited in the
// queue: the row belongs to another owner, and the item is not handled.
func (l *Loop[T]) adopt(it T, cancel context.CancelCauseFunc) bool {
	lease := it.Lease()
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.held[lease.ID]
	ok = ok && h.lease.Token == lease.Token && !h.lost
	if ok {
		h.cancel, h.started = cancel, true
	}
	return ok
}

// slowClaim warns, at most once per failureLogInterval, of a claim that
// took more than half the lease: its rows may reach their lease's end
// before their work is written, and another replica then takes them
// again. That is a setting to change, not a fault of one row, so it gets
// one line, not one per row.
func (l *Loop[T]) slowClaim(took time.Duration, rows int) {
	if suppressed, ok := l.failures.allow("slow claim"); ok {
		l.cfg.Logger.Warn("a claim took more than half the lease; its rows may expire before they are written: raise the lease or lower the batch size",
			"loop", l.cfg.Name, "claim_ms", took.Milliseconds(), "lease_ms", l.cfg.LeaseDuration.Milliseconds(),
			"setting", l.cfg.LeaseSetting, "rows", rows, "slow_claims_not_logged", suppressed)
	}
}

func (l *Loop[T]) failed(op string, err error) {
	l.failures.record(l.cfg.Logger, l.cfg.Name, op, err)
	if l.cfg.Hooks.ClaimFailed != nil {
		l.cfg.Hooks.ClaimFailed(op, err)
	}
}
