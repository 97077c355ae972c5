package queuebox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// InboxWorker claims and handles the rows of one pull source. Build it
// with NewInboxWorker. Several workers, in one process or many, may run on
// one source: the claim never gives two of them one row, nor two rows of
// one aggregate at the same time.
type InboxWorker struct {
	db      *sql.DB
	opts    Options
	store   *store
	log     logs
	lease   time.Duration
	running atomic.Bool
}

// errLeaseLost and errShutdown are the causes of a cancelled handler
// context: context.Cause(ctx) inside a handler tells them apart.
var (
	errLeaseLost = errors.New("queuebox: the lease of the message was lost; another worker owns it")
	errShutdown  = errors.New("queuebox: the shutdown grace ran out")
)

// NewInboxWorker builds a worker on db, whose driver the application has
// registered (pgx's stdlib for PostgreSQL, go-mssqldb for SQL Server). It
// fills the defaults of options and returns every setting that cannot
// work, joined in one error. It runs no statement; the worker needs the
// bundled schema at V10 or later, or a mapped one with the same columns.
// The worker does not close db.
func NewInboxWorker(db *sql.DB, options Options) (*InboxWorker, error) {
	if db == nil {
		return nil, errors.New("queuebox: NewInboxWorker needs a *sql.DB")
	}
	o, err := options.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("queuebox: %w", err)
	}
	s, err := newStore(db, o)
	if err != nil {
		return nil, fmt.Errorf("queuebox: %w", err)
	}
	return &InboxWorker{
		db: db, opts: o, store: s, log: logs{to: o.Logger},
		lease: time.Duration(o.LeaseMS) * time.Millisecond,
	}, nil
}

// Run claims and handles rows until ctx is cancelled, and returns nil
// then. It returns an error only for a nil handler or a second Run of the
// same worker at the same time; a database failure is logged and the
// claim tried again after the poll interval.
//
// Each claim runs alone in its own transaction, committed before a
// handler starts. Each handler gets a new transaction; after it returns
// nil the worker completes the row in that transaction and commits, and a
// completion that changes no row (the lease was lost) rolls the handler's
// writes back. A handler error rolls back, and the RetryPolicy retries or
// dead-letters the row. Leases are renewed every third of the lease.
//
// When ctx is cancelled, Run claims nothing more and starts no claimed
// row (their leases expire). Running handlers keep their leases for
// Options.ShutdownGrace; after that their contexts are cancelled, and the
// worker completes nothing for them and spends no attempt. Run returns
// when every handler has returned.
func (w *InboxWorker) Run(ctx context.Context, handler Handler) error {
	if handler == nil {
		return errors.New("queuebox: Run needs a handler")
	}
	if !w.running.CompareAndSwap(false, true) {
		return errors.New("queuebox: the worker is already running")
	}
	defer w.running.Store(false)
	r := &runner{
		w: w, handler: handler,
		base:     context.WithoutCancel(ctx),
		held:     map[string]*row{},
		slots:    make(chan struct{}, w.opts.MaxConcurrency),
		finished: make(chan struct{}, 1),
	}
	return r.run(ctx)
}

// runner is the state of one Run.
type runner struct {
	w       *InboxWorker
	handler Handler
	// base outlives the Run context: renewals and the fenced writes of
	// running handlers go on through the shutdown grace.
	base     context.Context
	mu       sync.Mutex
	held     map[string]*row // every claimed row not yet finished
	slots    chan struct{}
	finished chan struct{} // a handler finished: the claimer may claim
	handlers sync.WaitGroup
}

// row is one claimed row of a runner.
type row struct {
	c      claimed
	ctx    context.Context
	cancel context.CancelCauseFunc
	// mu is held by a renewal of this row and by the handler when it
	// finishes, so that no renewal runs beside the completion, the retry
	// or the dead letter.
	mu        sync.Mutex
	finishing bool
	renewedAt time.Time // local time before the last claim or renewal
}

func (r *runner) run(ctx context.Context) error {
	renewCtx, stopRenew := context.WithCancel(r.base)
	renewDone := make(chan struct{})
	go func() {
		defer close(renewDone)
		r.renewLoop(renewCtx)
	}()
	r.claimLoop(ctx)
	r.drain()
	stopRenew()
	<-renewDone
	return nil
}

// claimLoop waits for a free handler slot, claims a batch, starts each row
// as a handler slot frees, and claims again; after an empty claim it waits
// for the poll interval or a finished handler. It returns when ctx is
// cancelled.
func (r *runner) claimLoop(ctx context.Context) {
	o := r.w.opts
	for ctx.Err() == nil {
		// Claim only once a handler can start: rows claimed while every
		// slot is busy would sit under a lease that another worker, with
		// a free slot, could have used.
		select {
		case r.slots <- struct{}{}:
			<-r.slots
		case <-ctx.Done():
			return
		}
		batch, err := r.claim(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if lockTimeout(err) {
				r.w.log.warn("the claim waited too long for the source's application lock (Msg 51000); waiting before the next claim",
					"source", o.Source, "err", err)
			} else {
				r.w.log.error("claim inbox messages", "source", o.Source, "err", err)
			}
			r.wait(ctx, o.PollInterval, false)
			continue
		}
		for i, rw := range batch {
			select {
			case r.slots <- struct{}{}:
				r.start(rw)
			case <-ctx.Done():
				r.abandon(batch[i:])
				return
			}
		}
		if len(batch) == 0 {
			r.wait(ctx, o.PollInterval, true)
		}
	}
}

// wait waits for d, for ctx, or (when early) for a finished handler,
// which may have freed an aggregate.
func (r *runner) wait(ctx context.Context, d time.Duration, early bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	finished := r.finished
	if !early {
		finished = nil
	}
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-finished:
	}
}

// claim claims one batch and registers its rows for renewal.
func (r *runner) claim(ctx context.Context) ([]*row, error) {
	claimCtx := ctx
	if r.w.opts.Dialect == DialectSQLServer {
		// An aborted SQL Server claim leaves the per-source lock held
		// until the connection resets, so a stop lets it end; the
		// deadline stays above the 10 s lock timeout.
		var cancel context.CancelFunc
		claimCtx, cancel = context.WithTimeout(r.base, 30*time.Second)
		defer cancel()
	}
	started := time.Now()
	got, err := r.w.store.claimRows(claimCtx, r.w.opts.BatchSize)
	if err != nil {
		return nil, err
	}
	rows := make([]*row, 0, len(got))
	r.mu.Lock()
	for _, c := range got {
		rctx, cancel := context.WithCancelCause(r.base)
		rw := &row{c: c, ctx: rctx, cancel: cancel, renewedAt: started}
		r.held[c.msg.ID] = rw
		rows = append(rows, rw)
	}
	r.mu.Unlock()
	if ctx.Err() != nil {
		r.abandon(rows)
		return nil, ctx.Err()
	}
	return rows, nil
}

// abandon drops claimed rows that will not start: nothing renews them, and
// their leases expire, so another worker takes them without a spent
// attempt.
func (r *runner) abandon(rows []*row) {
	for _, rw := range rows {
		rw.cancel(errShutdown)
		r.forget(rw)
	}
	if len(rows) > 0 {
		r.w.log.info("stopping: left claimed messages to their leases", "source", r.w.opts.Source, "count", len(rows))
	}
}

func (r *runner) forget(rw *row) {
	r.mu.Lock()
	if r.held[rw.c.msg.ID] == rw {
		delete(r.held, rw.c.msg.ID)
	}
	r.mu.Unlock()
}

// start runs the handler of one row on a slot already taken.
func (r *runner) start(rw *row) {
	r.handlers.Add(1)
	go func() {
		defer func() {
			rw.cancel(context.Canceled)
			r.forget(rw)
			<-r.slots
			select {
			case r.finished <- struct{}{}:
			default:
			}
			r.handlers.Done()
		}()
		r.handle(rw)
	}()
}

// drain waits for running handlers for the shutdown grace, then cancels
// them and waits for them to return.
func (r *runner) drain() {
	idle := make(chan struct{})
	go func() {
		r.handlers.Wait()
		close(idle)
	}()
	grace := time.NewTimer(r.w.opts.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-idle:
		return
	case <-grace.C:
	}
	r.mu.Lock()
	running := len(r.held)
	for _, rw := range r.held {
		rw.cancel(errShutdown)
	}
	r.mu.Unlock()
	r.w.log.warn("the shutdown grace ran out: cancelled the running handlers; their messages wait for their leases to expire",
		"source", r.w.opts.Source, "count", running, "grace_ms", r.w.opts.ShutdownGrace.Milliseconds())
	<-idle
}
