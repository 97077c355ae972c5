// Package claim is the claim, lease and fence loop that the outbox poller
// and the inbox relay share. A Loop claims batches from a Source, runs a
// Handler per item with bounded concurrency, renews the lease of every
// item it holds in one batched statement, cancels the work of an item
// whose lease was lost, and runs the reclaim step on its own timer. It
// never writes an item's outcome: the handler does, fenced on the lease.
package claim

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Lease identifies one claimed row: its id and the claim token that
// fences every later write.
type Lease = queuebox.Lease

// Item is a claimed row. Its Lease must not change while the loop holds
// it.
type Item interface {
	Lease() Lease
}

// Source is the claim side of a table. The loop calls it from several
// goroutines at once (claims, renewals and the reclaim step each run on
// their own), so an implementation must be safe for concurrent use. The
// loop never closes a Source; its owner does, once Run has returned.
//
// Each call is one statement, bounded by its ctx; an implementation stops
// when ctx ends and does not retry by itself. Claim runs under a context
// that a shutdown does not cancel, because its rows may already be
// committed as processing; only a 30 s timeout bounds it. Renew and
// Reclaim run under Run's ctx, and the renewals of the drain window
// under a timeout of a third of the lease.
type Source[T Item] interface {
	// Claim takes up to limit due rows, moving them to processing under a
	// new token and lease, and returns them in claim order. An empty answer
	// without error is a successful claim.
	Claim(ctx context.Context, limit int) ([]T, error)
	// Renew extends, in one fenced statement, the leases that are still
	// held and returns their ids. A lease missing from the answer was lost.
	// An error says nothing of any lease: the loop keeps the work until no
	// renewal has found it for a whole lease duration.
	Renew(ctx context.Context, leases []Lease) (map[string]bool, error)
	// Reclaim returns the processing rows of any owner whose lease
	// expired to pending, and says how many it returned.
	Reclaim(ctx context.Context) (int64, error)
}

// NextDuer is the optional extension of a Source that says when its next
// waiting row falls due (see queuebox.NextDuer). The loop asks it after a
// claim that leaves it idle and claims again then, when that comes before
// the next poll tick. A Source without it is claimed at the poll interval
// and on wakes only.
type NextDuer = queuebox.NextDuer

// Handler works on one item. Up to Concurrency handlers run at once, each
// on its own worker goroutine, so state they share must be safe for
// concurrent use; one lease is never handled twice. ctx is not Run's
// context: a shutdown does not cancel it. It is cancelled when the lease
// is lost (then context.Cause(ctx) is queuebox.ErrLeaseLost and the
// handler must write nothing more), or when the shutdown timeout passes
// (then the cause is context.Canceled; the row stays processing until the
// reclaim step returns it). The handler writes the outcome itself, fenced
// on the item's lease. The item is released when the handler returns.
type Handler[T Item] func(ctx context.Context, item T)

// AsyncHandler works on one item like Handler, but the item's work ends
// when done is called, not when the handler returns: a handler hands its
// outcome to a writer and frees its worker at once, and the writer calls
// done after the fenced write. The item stays held (and renewed) until
// then, and a shutdown waits for done up to ShutdownTimeout. done may be
// called from any goroutine and must be called once; later calls do
// nothing. done cancels ctx, so nothing may use ctx after it.
//
// The handler reports the loss of a lease of an item it took: it either
// sees ctx end with queuebox.ErrLeaseLost, or its fenced write finds the
// row gone. The loop reports (Hooks.Lost) only the items it never handed
// to the handler.
type AsyncHandler[T Item] func(ctx context.Context, item T, done func())

// BatchHandler works on a whole claimed batch at once, in claim order.
// The loop runs one batch at a time, on one worker goroutine, and releases
// the batch when the handler returns. A lost lease does not cancel ctx:
// the handler's fenced writes find the loss themselves, and report it.
// ctx is cancelled only when the shutdown timeout passes.
type BatchHandler[T Item] func(ctx context.Context, items []T)

// Hooks receive the events that metrics and logs need. Every hook is
// optional. Hooks run on the loop's goroutines, possibly at the same time,
// so they must be quick and safe for concurrent use.
type Hooks struct {
	// Lost is called once per item whose lease the loop found lost: a
	// renewal missed it, renewals failed for a whole lease, or a new claim
	// of the row replaced it (in an async or batch loop, only for items
	// that never reached the handler).
	Lost func(l Lease)
	// Reclaimed is called after each reclaim step that returned rows.
	Reclaimed func(n int64)
	// ClaimFailed is called when a claim, renewal or reclaim fails; op is
	// "claim", "renew" or "reclaim".
	ClaimFailed func(op string, err error)
	// Claimed is called with the size of every claim that returned rows.
	Claimed func(n int)
}

// Config sets the pace and bounds of a Loop.
type Config struct {
	Name          string        // names the loop in logs
	BatchSize     int           // most rows of one claim
	Concurrency   int           // handlers that run at once
	PollInterval  time.Duration // claim at least this often
	LeaseDuration time.Duration // renew each third of it, reclaim each fifth; zero: neither
	// LeaseSetting names the key that sets LeaseDuration in the warning of
	// a claim that used up half of it.
	LeaseSetting    string
	ShutdownTimeout time.Duration // how long Run lets held work finish once ctx ends
	Logger          *slog.Logger
	Hooks           Hooks
	// Health, when set, goes down when a claim fails and up when a claim
	// is answered, empty ones included. The caller owns it and serves its
	// Check.
	Health *Health
}

// Loop runs one claim loop. Create it with New, NewAsync or NewBatch and
// call Run once. Its methods are safe for concurrent use.
type Loop[T Item] struct {
	cfg     Config
	source  Source[T]
	handler Handler[T]
	async   AsyncHandler[T]
	batch   BatchHandler[T]
	wake    chan struct{}
	// nextDue is the source's NextDuer, nil when it has none.
	nextDue NextDuer
	// queued counts units waiting for a worker, so the claimer can keep
	// the workers fed without claiming a row at a time.
	queued atomic.Int64

	mu   sync.Mutex
	held map[string]*held
	// idle, once asked for while items are held, is closed (and dropped)
	// when the last of them is released; see idleSignal.
	idle chan struct{}

	failures *failureLog
}

type held struct {
	lease  Lease
	cancel context.CancelCauseFunc
	// renewed is when the lease last started, by the local monotonic
	// clock: when the claim, or the last renewal that found it, was sent.
	// The database starts the lease while it runs the statement, later
	// than that, so the lease never ends earlier than renewed plus
	// LeaseDuration; an answer that comes late (a slow network, a process
	// stopped meanwhile) does not make the lease look younger than it is.
	renewed time.Time
	// lost is set once the loss of the lease is known (a renewal missed
	// it, or a new claim of the row replaced it). A lost item is neither
	// renewed nor reported again, and a queued one is not handled.
	lost bool
	// started is set when a worker hands the item to the handler.
	started bool
}

// New builds a loop. Zero or negative sizes fall back to 1, a zero poll
// interval to 100 ms.
func New[T Item](cfg Config, source Source[T], handler Handler[T]) *Loop[T] {
	cfg.BatchSize = max(cfg.BatchSize, 1)
	cfg.Concurrency = max(cfg.Concurrency, 1)
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 100 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	nextDue, _ := any(source).(NextDuer)
	return &Loop[T]{cfg: cfg, source: source, handler: handler, wake: make(chan struct{}, 1), held: map[string]*held{},
		nextDue: nextDue, failures: newFailureLog(time.Now)}
}

// NewAsync builds a loop whose handler finishes items through done.
func NewAsync[T Item](cfg Config, source Source[T], handler AsyncHandler[T]) *Loop[T] {
	l := New[T](cfg, source, nil)
	l.async = handler
	return l
}

// NewBatch builds a loop that hands each claimed batch to one handler
// call, one batch at a time. Concurrency is ignored.
func NewBatch[T Item](cfg Config, source Source[T], handler BatchHandler[T]) *Loop[T] {
	cfg.Concurrency = 1
	l := New[T](cfg, source, nil)
	l.batch = handler
	return l
}

// Wake asks for a claim now instead of at the next poll tick. It is safe
// to call from any goroutine, before, during or after Run, and never
// blocks: wakes that arrive while one is pending merge into one claim. A
// claim happens only while Run claims (before ctx ends) and the loop has
// room; after Run returned a wake does nothing.
func (l *Loop[T]) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Held returns how many items the loop holds (queued, running or waiting
// for their outcome write). It is safe to call from any goroutine.
func (l *Loop[T]) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.held)
}

// closedSignal is the idle signal of a loop that holds nothing.
var closedSignal = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// idleSignal returns a channel that is closed once the loop holds no
// item: a closed one when it holds none now. The shutdown waits on it for
// the held work to end.
func (l *Loop[T]) idleSignal() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.held) == 0 {
		return closedSignal
	}
	if l.idle == nil {
		l.idle = make(chan struct{})
	}
	return l.idle
}
