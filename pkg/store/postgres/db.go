// Package postgres is the PostgreSQL store of QueueBox on pgx/v5: the
// connection pool with its documented hikaricp_* metrics, the migration
// runner, the startup schema guard and the statements of every worker.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure Open.
type Options struct {
	// ConnString is a pgx connection string (URL or keyword/value form).
	ConnString string
	// DisplayURL names the database in errors and logs, password masked.
	DisplayURL string
	// PoolSize is the largest number of connections (database.poolSize).
	PoolSize int
	// AcquireTimeout bounds the wait for a pooled connection
	// (database.connectionTimeoutMs).
	AcquireTimeout time.Duration
	// StartupTimeout bounds the retries of the first connection
	// (database.startupTimeoutMs).
	StartupTimeout time.Duration
	// PoolName is the value of the pool label of the hikaricp_* metrics.
	PoolName string
	// Registerer receives the pool metrics; nil registers nothing.
	Registerer prometheus.Registerer
	Logger     *slog.Logger
}

// DB is the pool every component of a process shares. It is safe for
// concurrent use. Close it once, after every user stopped.
type DB struct {
	Pool           *pgxpool.Pool
	acquireTimeout time.Duration
	metrics        *poolMetrics
	display        string
}

// ErrAcquireTimeout reports that no pooled connection became free within
// database.connectionTimeoutMs.
var ErrAcquireTimeout = errors.New("no database connection became free within database.connectionTimeoutMs")

// Open creates the pool and retries the first connection until it answers
// or opts.StartupTimeout passes. The error then names the URL with its
// password masked.
func Open(ctx context.Context, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(opts.ConnString)
	if err != nil {
		return nil, fmt.Errorf("database.url %s: %s", opts.DisplayURL, parseFailure(err))
	}
	if opts.PoolSize > 0 {
		cfg.MaxConns = int32(opts.PoolSize)
	}
	cfg.MinConns = 0
	m := newPoolMetrics(opts.Registerer, opts.PoolName, cfg.MaxConns, cfg.MinConns)
	m.install(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database.url %s: %w", opts.DisplayURL, err)
	}
	m.pool = pool
	db := &DB{Pool: pool, acquireTimeout: opts.AcquireTimeout, metrics: m, display: opts.DisplayURL}
	if err := db.waitForDatabase(ctx, opts.StartupTimeout, opts.Logger); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// parseFailure returns the reason of a pgx parse error without the
// connection string that pgx quotes: pgx masks the password there on a best
// effort only (a quoted password with an escaped quote leaks its tail), and
// the caller names the database by its masked URL anyway.
func parseFailure(err error) string {
	var pce *pgconn.ParseConfigError
	if !errors.As(err, &pce) {
		return err.Error()
	}
	msg := pce.Error()
	if i := strings.LastIndex(msg, "`: "); i >= 0 {
		return "cannot parse the connection settings: " + msg[i+len("`: "):]
	}
	return "cannot parse the connection settings"
}

func (db *DB) waitForDatabase(ctx context.Context, bound time.Duration, log *slog.Logger) error {
	deadline := time.Now().Add(bound)
	delay := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		pingCtx, cancel := context.WithTimeout(ctx, min(5*time.Second, max(time.Until(deadline), time.Millisecond)))
		err := db.Pool.Ping(pingCtx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("database %s: start cancelled: %w", db.display, ctx.Err())
		}
		if time.Now().Add(delay).After(deadline) {
			return fmt.Errorf("database %s did not answer within %d ms (database.startupTimeoutMs): %w",
				db.display, bound.Milliseconds(), err)
		}
		if log != nil {
			log.Warn("database not ready, retrying", "url", db.display, "attempt", attempt, "err", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("database %s: start cancelled: %w", db.display, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

// Acquire takes a connection, waiting at most the acquire timeout. The
// caller releases it.
func (db *DB) Acquire(ctx context.Context) (*pgxpool.Conn, error) {
	actx := ctx
	if db.acquireTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, db.acquireTimeout)
		defer cancel()
	}
	conn, err := db.Pool.Acquire(actx)
	if err != nil {
		if ctx.Err() == nil && actx.Err() != nil {
			db.metrics.timeouts.Inc()
			return nil, ErrAcquireTimeout
		}
		return nil, err
	}
	return conn, nil
}

// WithConn runs fn on a pooled connection and releases it afterwards.
func (db *DB) WithConn(ctx context.Context, fn func(*pgxpool.Conn) error) error {
	conn, err := db.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	return fn(conn)
}

// WithTx runs fn in a transaction: commit when fn returns nil, roll back
// otherwise.
func (db *DB) WithTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		return pgx.BeginFunc(ctx, conn, fn)
	})
}

// execCount runs a statement and returns how many rows it changed; what
// names the operation in the error.
func (db *DB) execCount(ctx context.Context, what, stmt string, args ...any) (int64, error) {
	var n int64
	err := db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		tag, err := conn.Exec(ctx, stmt, args...)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return n, nil
}

// Ping checks that the database answers; the health check of the database
// component.
func (db *DB) Ping(ctx context.Context) error {
	return db.WithConn(ctx, func(conn *pgxpool.Conn) error { return conn.Ping(ctx) })
}

// Display returns the database URL with its password masked.
func (db *DB) Display() string { return db.display }

// Close closes the pool; it waits for acquired connections to return.
func (db *DB) Close() { db.Pool.Close() }
