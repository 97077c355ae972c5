// Package sqlserver is the SQL Server store of QueueBox on database/sql
// and go-mssqldb: the connection pool, the migration runner, the startup
// schema guard and the statements of every worker, in T-SQL. Its
// statements sit in queries/ under the names of the PostgreSQL store's,
// so the two dialects diff side by side.
//
// No SQL Server runs on the machines this was written on: the statements
// are checked as rendered text (golden files) and the Go decisions with
// a fake driver; integration/sqlserver runs the store suite against a
// real server for a person with Docker.
package sqlserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	mssql "github.com/microsoft/go-mssqldb"

	"github.com/alternayte/queuebox/pkg/backoff"
)

// DriverName is the database/sql driver this store opens.
const DriverName = "sqlserver"

var _ = mssql.Error{} // the driver registers itself as DriverName on import

// Options configure Open.
type Options struct {
	// ConnString is a go-mssqldb connection string (sqlserver://...).
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
	// StartupSetting names what set StartupTimeout in the error of a
	// start that ran out of time; empty means database.startupTimeoutMs
	// (a command line tool names its flag).
	StartupSetting string
	// StatementTimeout bounds a statement whose caller set no deadline;
	// zero means DefaultStatementTimeout.
	StatementTimeout time.Duration
	Logger           *slog.Logger
}

// DefaultStatementTimeout bounds a statement whose caller set no
// deadline, as in the PostgreSQL store.
const DefaultStatementTimeout = 30 * time.Second

// ErrAcquireTimeout reports that no pooled connection became free within
// database.connectionTimeoutMs.
var ErrAcquireTimeout = errors.New("no database connection became free within database.connectionTimeoutMs")

// DB is the pool every component of a process shares. It is safe for
// concurrent use. Close it once, after every user stopped.
type DB struct {
	SQL              *sql.DB
	acquireTimeout   time.Duration
	statementTimeout time.Duration
	display          string
	// connString holds the password: never log it.
	connString string
	// pause waits between two tries of a statement that lost a deadlock
	// or a lock wait; tests replace it so that they wait on nothing.
	pause func(ctx context.Context, failures int) bool
}

// Open opens the pool on the go-mssqldb driver and retries the first
// connection until it answers or opts.StartupTimeout passes; the error
// then names the URL (host and port) with its password masked. A login
// the server refuses (see refusal) ends the wait at once, with the
// server's reason first.
func Open(ctx context.Context, opts Options) (*DB, error) {
	pool, err := sql.Open(DriverName, opts.ConnString)
	if err != nil {
		return nil, fmt.Errorf("database.url %s: %w", opts.DisplayURL, err)
	}
	db, err := OpenDB(ctx, pool, opts)
	if err != nil {
		_ = pool.Close()
		return nil, err
	}
	return db, nil
}

// OpenDB wraps a pool that the caller opened (a test opens one on a fake
// driver) and waits for it as Open does. On an error the caller closes
// the pool; on success the DB owns it.
func OpenDB(ctx context.Context, pool *sql.DB, opts Options) (*DB, error) {
	if opts.PoolSize > 0 {
		pool.SetMaxOpenConns(opts.PoolSize)
	}
	db := &DB{SQL: pool, acquireTimeout: opts.AcquireTimeout, statementTimeout: opts.StatementTimeout,
		display: opts.DisplayURL, connString: opts.ConnString, pause: pauseBackoff}
	if db.statementTimeout <= 0 {
		db.statementTimeout = DefaultStatementTimeout
	}
	if err := db.waitForDatabase(ctx, opts.StartupTimeout, opts.StartupSetting, opts.Logger); err != nil {
		return nil, err
	}
	return db, nil
}

func (db *DB) waitForDatabase(ctx context.Context, bound time.Duration, setting string, log *slog.Logger) error {
	if setting == "" {
		setting = "database.startupTimeoutMs"
	}
	deadline := time.Now().Add(bound)
	wait := backoff.Doubling{Min: 250 * time.Millisecond, Max: 5 * time.Second}
	for attempt := 1; ; attempt++ {
		pingCtx, cancel := context.WithTimeout(ctx, min(5*time.Second, max(time.Until(deadline), 250*time.Millisecond)))
		err := db.SQL.PingContext(pingCtx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("database %s: start cancelled: %w", db.display, ctx.Err())
		}
		if refused := refusal(err, db.display); refused != nil {
			return refused
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("database %s did not answer within %d ms (%s): %w",
				db.display, bound.Milliseconds(), setting, err)
		}
		if log != nil {
			log.Warn("database not ready, retrying", "url", db.display, "attempt", attempt, "err", err)
		}
		if !backoff.Sleep(ctx, min(wait.Next(), left)) {
			return fmt.Errorf("database %s: start cancelled: %w", db.display, ctx.Err())
		}
	}
}

// pauseBackoff is the wait before the next try of a statement that lost
// a deadlock or a lock wait: short, doubling, and cancelled with ctx.
func pauseBackoff(ctx context.Context, failures int) bool {
	return backoff.Sleep(ctx, backoff.Delay(20*time.Millisecond, 500*time.Millisecond, failures))
}

// maxTries bounds the tries of a statement that keeps losing deadlocks
// or lock waits; past it the error goes to the caller's loop.
const maxTries = 4

// on runs fn on a pooled connection (waiting at most the acquire
// timeout), and again, up to maxTries, while it fails with a transient
// lock error: SQL Server rolled the statement or its transaction back
// (a deadlock victim, a lock wait that timed out, the claim lock not
// granted), so its fate is known and a repeat is safe for every
// statement, fenced writes included. A broken connection is the
// driver's: database/sql replaces a connection that reports
// driver.ErrBadConn before the statement is sent. Without a deadline on
// ctx, the statement timeout bounds the whole run.
func (db *DB) on(ctx context.Context, fn func(context.Context, *sql.Conn) error) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, db.statementTimeout)
		defer cancel()
	}
	for failures := 1; ; failures++ {
		err := db.once(ctx, fn)
		if !isTransient(err) || failures >= maxTries || !db.pause(ctx, failures) {
			return err
		}
	}
}

// once runs fn on one connection and reads its error through
// interpretError.
func (db *DB) once(ctx context.Context, fn func(context.Context, *sql.Conn) error) error {
	actx := ctx
	if db.acquireTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeoutCause(ctx, db.acquireTimeout, ErrAcquireTimeout)
		defer cancel()
	}
	conn, err := db.SQL.Conn(actx)
	if err != nil {
		if errors.Is(context.Cause(actx), ErrAcquireTimeout) && ctx.Err() == nil {
			return ErrAcquireTimeout
		}
		return interpretError(err)
	}
	defer conn.Close()
	return interpretError(fn(ctx, conn))
}

// withTx runs fn in a READ COMMITTED transaction on one connection:
// commit when fn returns nil, roll back otherwise. The whole transaction
// is what on repeats after a transient lock error.
func (db *DB) withTx(ctx context.Context, fn func(context.Context, *sql.Tx) error) error {
	return db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		tx, err := conn.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			return err
		}
		if err := fn(ctx, tx); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// execCount runs a statement and returns how many rows it changed; what
// names the operation in the error.
func (db *DB) execCount(ctx context.Context, what, stmt string, args ...any) (int64, error) {
	var n int64
	err := db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		res, err := conn.ExecContext(ctx, stmt, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return n, nil
}

// queryIDs runs a statement that returns one id per changed row, the
// shape of every fenced write (OUTPUT inserted.id), and collects them.
func (db *DB) queryIDs(ctx context.Context, what, stmt string, args ...any) (map[string]bool, error) {
	var kept map[string]bool
	err := db.withTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		kept = map[string]bool{}
		rows, err := tx.QueryContext(ctx, stmt, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			kept[id] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return kept, nil
}

// Ping checks that the database answers; the health check of the
// database component.
func (db *DB) Ping(ctx context.Context) error {
	return db.on(ctx, func(ctx context.Context, conn *sql.Conn) error { return conn.PingContext(ctx) })
}

// Display returns the database URL with its password masked.
func (db *DB) Display() string { return db.display }

// Close closes the pool; it waits for connections in use to return.
func (db *DB) Close() { _ = db.SQL.Close() }
