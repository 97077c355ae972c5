package sqlserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/alternayte/queuebox/pkg/capture"
)

// Options wire a Runner.
type Options struct {
	// Settings name the identity, the outbox table and the state
	// directory (required); Schema is dbo when empty. Slot and
	// Publication mean nothing on SQL Server: leave them empty so that
	// they never count as changed settings.
	Settings capture.Settings
	// DB runs the statements on database.url (required).
	DB DB
	// Locker takes the owner lock (required).
	Locker  Locker
	Metrics *capture.Metrics
	Logger  *slog.Logger
	// Poll is the wait between two reads of the change table: 250 ms when
	// zero.
	Poll time.Duration
	// MinBackoff and MaxBackoff bound the wait after a failure: 1 s and
	// 30 s when zero, as for PostgreSQL.
	MinBackoff, MaxBackoff time.Duration
	// Heartbeat is how often the owner lock session is checked: 5 s when
	// zero.
	Heartbeat time.Duration
}

// Runner is the sqlserver-cdc connector: one owner per identity (an
// application lock), the start checks, the state files and row reconciled
// as for PostgreSQL, then a reader of the change table from the stored LSN
// that bumps the wake row after each batch holding inserts. It implements
// the component contract of package run. Check is the advisory
// outbox-capture health check and is safe for concurrent use.
type Runner struct {
	opts   Options
	conn   *Connector
	dir    capture.StateDir
	status *capture.Status
}

// NewRunner sets the defaults, checks the options and renders the
// statements. It opens nothing.
func NewRunner(opts Options) (*Runner, error) {
	if opts.Settings.StateDirectory == "" {
		return nil, errors.New("outbox.capture.stateDirectory (QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY): required")
	}
	if opts.DB == nil || opts.Locker == nil {
		return nil, errors.New("sqlserver capture: DB and Locker are required")
	}
	opts.setDefaults()
	conn, err := New(opts.DB, opts.Settings.Schema, opts.Settings.Table)
	if err != nil {
		return nil, err
	}
	return &Runner{opts: opts, conn: conn, dir: capture.NewStateDir(opts.Settings.StateDirectory), status: capture.NewStatus()}, nil
}

func (o *Options) setDefaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Metrics == nil {
		o.Metrics = capture.NewMetrics(nil)
	}
	if o.Settings.Schema == "" {
		o.Settings.Schema = "dbo"
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&o.Poll, 250 * time.Millisecond}, {&o.MinBackoff, time.Second}, {&o.MaxBackoff, 30 * time.Second}, {&o.Heartbeat, 5 * time.Second}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
}

// Name implements run.Component.
func (r *Runner) Name() string { return "outbox-capture" }

// Check reports the connector: nil while it reads, the fault or the
// failure otherwise. It never blocks.
func (r *Runner) Check(ctx context.Context) error { return r.status.Check(ctx) }

// Run captures until ctx ends and returns nil: a capture failure never
// stops the process, because delivery goes on through SQL. A failure
// retries with a backoff from MinBackoff to MaxBackoff; a capture.Fault
// stops capture until the process is restarted. The owner lock is
// released when Run returns.
func (r *Runner) Run(ctx context.Context) error {
	var lock Lock
	defer func() {
		if lock != nil {
			lock.Release()
		}
	}()
	// Every attempt wakes delivery, as for PostgreSQL; the very first one
	// may find no wake table yet, which the start after the checks makes
	// up for.
	capture.Supervisor{Status: r.status, Logger: r.opts.Logger, MinBackoff: r.opts.MinBackoff, MaxBackoff: r.opts.MaxBackoff,
		BeforeAttempt: func() { r.wake(ctx) }}.Run(ctx, func(ctx context.Context) error { return r.attempt(ctx, &lock) })
	return nil
}

// attempt takes (or checks) the owner lock and captures until ctx ends or
// something fails. A lock session that failed is released, so that the
// next attempt takes the lock again.
func (r *Runner) attempt(ctx context.Context, lock *Lock) error {
	s := r.opts.Settings
	if *lock == nil {
		l, held, err := r.opts.Locker.TryLock(ctx, s.Identity)
		if err != nil {
			return err
		}
		if !held {
			return &capture.Fault{Kind: capture.FaultIdentityOwned, Detail: fmt.Sprintf(
				"capture identity %q already has an owner: another session holds its application lock %s; this process does not capture",
				s.Identity, lockResource(s.Identity))}
		}
		*lock = l
	}
	err := r.captureOnce(ctx, *lock)
	var lost *lockLostError
	if errors.As(err, &lost) {
		(*lock).Release()
		*lock = nil
	}
	return err
}

// lockLostError is a failed heartbeat of the owner lock session.
type lockLostError struct{ err error }

func (e *lockLostError) Error() string { return e.err.Error() }
func (e *lockLostError) Unwrap() error { return e.err }

// captureOnce checks, reconciles, finds the position and reads.
func (r *Runner) captureOnce(ctx context.Context, lock Lock) error {
	s, log := r.opts.Settings, r.opts.Logger
	if err := lock.Heartbeat(ctx); err != nil {
		return &lockLostError{err}
	}
	agentUnknown, err := r.conn.Check(ctx)
	if err != nil {
		return err
	}
	if agentUnknown {
		log.Warn("cannot see whether the SQL Server Agent runs (the login lacks VIEW SERVER STATE); the change tables stay empty while it is stopped")
	}
	plan, err := r.conn.reconcile(ctx, r.dir, s)
	if err != nil {
		return err
	}
	if plan.Register {
		if err := r.conn.register(ctx, r.dir, s, plan.Instance); err != nil {
			return err
		}
		log.Info("capture identity registered", "identity", s.Identity, "instance", plan.Instance)
	}
	if err := r.conn.touchRow(ctx, s.Identity); err != nil {
		return err
	}
	pos, err := r.startLSN(ctx, plan.Offset)
	if err != nil {
		return err
	}
	// Rows already in the table, or written while capture was down, need
	// one claim: wake delivery on every attempt.
	r.wake(ctx)
	r.status.Set(nil)
	log.Info("capture reading", "identity", s.Identity, "instance", r.conn.instance, "from", pos.String(), "host", s.DisplayURL)
	return r.read(ctx, lock, pos)
}

// startLSN is where reading starts: the stored LSN once checked against
// the change table, or on a first start the highest LSN now (recorded at
// once), because rows already in the table need one wake-up, not one per
// row.
func (r *Runner) startLSN(ctx context.Context, stored string) (LSN, error) {
	low, high, err := r.conn.Bounds(ctx)
	if err != nil {
		return nil, err
	}
	if stored != "" {
		pos, fault := checkStored(filepath.Join(r.opts.Settings.StateDirectory, "offsets.dat"), stored, low, high)
		if fault != nil {
			return nil, fault
		}
		return pos, nil
	}
	if high == nil {
		high = make(LSN, lsnSize)
	}
	if err := r.dir.WriteOffset(high.String()); err != nil {
		return nil, err
	}
	return high, nil
}
