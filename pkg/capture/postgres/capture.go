// Package postgres is the postgres-logical capture connector: it streams
// the outbox table's inserts from a logical replication slot (pgoutput,
// through pglogrepl and pgx) and wakes every deliver replica with a
// NOTIFY (packages wake and wake/postgres). The owner lock, the state
// table and the lag gauge live on database.url; the shared framework
// (settings, state directory, reconciliation, restart policy, metrics) is
// package capture.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/capture"
	"github.com/alternayte/queuebox/pkg/wake"
	wakepg "github.com/alternayte/queuebox/pkg/wake/postgres"
)

// Database is what capture needs of the store set of database.url, where
// the state table, the owner lock and the wake-ups live. The PostgreSQL
// store set implements it; a set that does not cannot run this connector.
type Database interface {
	// PgxConnString is the pgx connection string of database.url. It holds
	// the password: never log it.
	PgxConnString() string
}

// Options wire a Capture.
type Options struct {
	Settings capture.Settings
	// Database is the store set of database.url (required). Capture opens
	// a small pool of its own and the owner lock session on it, so that
	// its statements never wait behind delivery for a pooled connection.
	Database Database
	Metrics  *capture.Metrics
	Logger   *slog.Logger
	// MinBackoff and MaxBackoff bound the wait between two attempts after
	// a connector failure: 1 s and 30 s when zero, as documented.
	MinBackoff, MaxBackoff time.Duration
	// Heartbeat is how often the owner lock session is checked: 5 s when
	// zero.
	Heartbeat time.Duration
	// LagInterval is how often the slot lag is sampled: 2 s when zero.
	LagInterval time.Duration
}

// Capture is the postgres-logical connector: one owner per identity,
// durable state, start-time reconciliation, and a NOTIFY to every deliver
// replica for each committed outbox insert. It implements the component
// contract of package run. Check is the advisory outbox-capture health
// check; it is safe for concurrent use.
type Capture struct {
	opts     Options
	dir      capture.StateDir
	mainConn string
	pool     *pgxpool.Pool
	notifier *wake.Notifier
	status   *capture.Status
}

// New sets the defaults, checks the options and prepares the pool of
// database.url (it connects on first use). Run closes it.
func New(opts Options) (*Capture, error) {
	opts.setDefaults()
	if opts.Settings.StateDirectory == "" {
		return nil, errors.New("outbox.capture.stateDirectory (QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY): required")
	}
	if opts.Database == nil {
		return nil, errors.New("capture: the database of database.url is required")
	}
	mainConn := opts.Database.PgxConnString()
	cfg, err := pgxpool.ParseConfig(mainConn)
	if err != nil {
		return nil, fmt.Errorf("capture database connection: %w", err)
	}
	cfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("capture database connection: %w", err)
	}
	c := &Capture{opts: opts, dir: capture.NewStateDir(opts.Settings.StateDirectory), mainConn: mainConn, pool: pool, status: capture.NewStatus()}
	c.notifier = wake.NewNotifier(wakepg.PG{Q: pool}, wake.Channel, opts.Logger, opts.Metrics.Wakeups.Inc)
	return c, nil
}

// setDefaults fills what is zero with the documented defaults.
func (o *Options) setDefaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Metrics == nil {
		o.Metrics = capture.NewMetrics(nil)
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 5 * time.Second
	}
	if o.LagInterval <= 0 {
		o.LagInterval = 2 * time.Second
	}
	if o.Settings.Schema == "" {
		o.Settings.Schema = "public"
	}
}

// Name implements run.Component.
func (c *Capture) Name() string { return "outbox-capture" }

// Check reports the connector: nil while it streams, the fault or the
// failure otherwise. It never blocks.
func (c *Capture) Check(ctx context.Context) error { return c.status.Check(ctx) }

func (c *Capture) setStatus(err error) { c.status.Set(err) }

// Run captures until ctx ends and returns nil: a capture failure never
// stops the process, because delivery goes on through SQL. A connector
// failure retries with a backoff from MinBackoff to MaxBackoff and wakes
// delivery on every attempt; a Fault stops capture until the process is
// restarted.
func (c *Capture) Run(ctx context.Context) error {
	defer c.pool.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = c.notifier.Run(ctx) }()
	go func() { defer wg.Done(); c.sampleLag(ctx) }()
	defer wg.Wait()
	var own *owner
	defer func() {
		if own != nil {
			own.release()
		}
	}()
	capture.Supervisor{Status: c.status, Logger: c.opts.Logger, MinBackoff: c.opts.MinBackoff, MaxBackoff: c.opts.MaxBackoff,
		BeforeAttempt: c.notifier.Wake}.Run(ctx, func(ctx context.Context) error { return c.attempt(ctx, &own) })
	return nil
}

// attempt takes (or checks) the owner lock, reconciles the state and
// streams until ctx ends or something fails.
func (c *Capture) attempt(ctx context.Context, own **owner) error {
	s := c.opts.Settings
	if *own == nil {
		o, held, err := acquireOwner(ctx, c.mainConn, s.Identity)
		if err != nil {
			return err
		}
		if !held {
			return &capture.Fault{Kind: capture.FaultIdentityOwned, Detail: fmt.Sprintf(
				"capture identity %s already has an owner: another process holds its session lock; this process does not capture", quote(s.Identity))}
		}
		*own = o
	} else if err := (*own).heartbeat(ctx); err != nil {
		(*own).release()
		*own = nil
		return err
	}
	actx, cancel := context.WithCancelCause(ctx)
	lockLost := make(chan error, 1)
	beat := make(chan struct{})
	go func() { defer close(beat); c.heartbeat(actx, *own, lockLost, cancel) }()
	err := c.captureOnce(actx)
	cancel(nil)
	<-beat
	select {
	case lerr := <-lockLost:
		(*own).release()
		*own = nil
		return lerr
	default:
	}
	return err
}

// heartbeat checks the lock session until ctx ends; a failure cancels
// the attempt, because the lock may be gone with the session.
func (c *Capture) heartbeat(ctx context.Context, o *owner, lost chan<- error, cancel context.CancelCauseFunc) {
	t := time.NewTicker(c.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := o.heartbeat(ctx); err != nil {
				if ctx.Err() == nil {
					lost <- err
					cancel(err)
				}
				return
			}
		}
	}
}

// captureOnce reconciles and streams once.
func (c *Capture) captureOnce(ctx context.Context) error {
	s, log := c.opts.Settings, c.opts.Logger
	conn, err := connectReplication(ctx, s)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	if err := checkPublication(ctx, conn, s); err != nil {
		return err
	}
	plan, err := c.reconcile(ctx, conn)
	if err != nil {
		return err
	}
	if plan.Register {
		if err := register(ctx, c.pool, c.dir, s, plan.Instance); err != nil {
			return err
		}
		log.Info("capture identity registered", "identity", s.Identity, "instance", plan.Instance)
	}
	if plan.CreateSlot {
		lsn, err := createSlot(ctx, conn, s.Slot)
		if err != nil {
			return err
		}
		if err := c.dir.WriteOffset(lsn.String()); err != nil {
			return err
		}
		plan.Offset = lsn.String()
		log.Info("replication slot created; QueueBox never drops it", "slot", s.Slot, "position", plan.Offset)
	}
	if err := touchRow(ctx, c.pool, s.Identity); err != nil {
		return err
	}
	start, err := startPosition(ctx, conn, s, plan.Offset, log)
	if err != nil {
		return err
	}
	// The snapshot: rows already in the table need one claim, not one
	// wake-up each.
	c.notifier.Wake()
	return runStream(ctx, conn, s, start, events{
		inserted: func(xid uint32, commit time.Time) {
			c.opts.Metrics.Event(commit)
			c.notifier.WakeAfter(xid)
		},
		persist: func(lsn pglogrepl.LSN) error { return c.dir.WriteOffset(lsn.String()) },
		streaming: func() {
			c.setStatus(nil)
			log.Info("capture streaming", "identity", s.Identity, "slot", s.Slot, "publication", s.Publication,
				"from", start.String(), "host", s.DisplayURL)
		},
	})
}

// reconcile reads the table, the files and the slot, and decides.
func (c *Capture) reconcile(ctx context.Context, conn *pgconn.PgConn) (capture.Plan, error) {
	s := c.opts.Settings
	exists, err := slotInfo(ctx, conn, s)
	if err != nil {
		return capture.Plan{}, err
	}
	row, err := loadRow(ctx, c.pool, s.Identity)
	if err != nil {
		return capture.Plan{}, err
	}
	files, err := c.dir.ReadIdentity()
	if err != nil {
		return capture.Plan{}, err
	}
	empty, err := c.dir.Empty()
	if err != nil {
		return capture.Plan{}, err
	}
	offset, err := c.dir.ReadOffset()
	if err != nil {
		return capture.Plan{}, err
	}
	plan, fault := capture.Reconcile(s, s.StateDirectory, capture.Observed{Row: row, Files: files, FilesPresent: !empty, Offset: offset, SlotExists: exists})
	if fault != nil {
		return capture.Plan{}, fault
	}
	return plan, nil
}

// sampleLag sets the slot lag gauge from the database: the current WAL
// position minus the slot's confirmed position. It reads through
// database.url, so with a capture host other than the main one the
// gauge shows nothing.
func (c *Capture) sampleLag(ctx context.Context) {
	t := time.NewTicker(c.opts.LagInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var lag int64
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := c.pool.QueryRow(qctx, slotLagSQL, c.opts.Settings.Slot).Scan(&lag)
		cancel()
		if err == nil {
			c.opts.Metrics.SlotLag.Set(float64(max(lag, 0)))
		}
	}
}

// quote renders a name for a report, as the shared framework's faults do.
func quote(s string) string { return fmt.Sprintf("%q", s) }
