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
	// StartupSetting names what set StartupTimeout in the error of a
	// start that ran out of time; empty means database.startupTimeoutMs
	// (a command line tool names its flag).
	StartupSetting string
	// StatementTimeout bounds a statement whose caller set no deadline
	// (renewals, reclaims, gauge reads, cleanups, inbox writes); zero
	// means DefaultStatementTimeout.
	StatementTimeout time.Duration
	// PoolName is the value of the pool label of the hikaricp_* metrics.
	PoolName string
	// Registerer receives the pool metrics; nil registers nothing.
	Registerer prometheus.Registerer
	Logger     *slog.Logger
}

// DB is the pool every component of a process shares. It is safe for
// concurrent use. Close it once, after every user stopped.
type DB struct {
	Pool             *pgxpool.Pool
	acquireTimeout   time.Duration
	statementTimeout time.Duration
	metrics          *poolMetrics
	display          string
	// connString is the pgx connection string of the pool, for sessions
	// of their own (LISTEN, capture). It holds the password: never log it.
	connString string
	// background is the context of the work a store runs beside its
	// callers' (the claims' active checks); Close ends it first, so that
	// work does not hold a connection that Close waits for.
	background context.Context
	stop       context.CancelFunc
}

// DefaultStatementTimeout bounds a statement whose caller set no deadline,
// the same bound that the claim loops give their claims and writes: a
// connection that went silent (a failover that moved the address, a frozen
// server) must not hold a worker, a gauge or a request for ever.
const DefaultStatementTimeout = 30 * time.Second

// ErrAcquireTimeout reports that no pooled connection became free within
// database.connectionTimeoutMs.
var ErrAcquireTimeout = errors.New("no database connection became free within database.connectionTimeoutMs")

// Open creates the pool and retries the first connection until it answers
// or opts.StartupTimeout passes. The error then names the URL with its
// password masked. A definite refusal by the server (see refusal) ends
// the wait at once, with the server's reason first: no retry changes a
// wrong password or a missing database.
func Open(ctx context.Context, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(opts.ConnString)
	if err != nil {
		return nil, fmt.Errorf("database.url %s: %s", opts.DisplayURL, parseFailure(err))
	}
	if opts.PoolSize > 0 {
		cfg.MaxConns = int32(opts.PoolSize)
	}
	cfg.MinConns = 0
	jitOff(cfg)
	m := newPoolMetrics(opts.Registerer, opts.PoolName, cfg.MaxConns, cfg.MinConns)
	m.install(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database.url %s: %w", opts.DisplayURL, err)
	}
	m.pool = pool
	db := &DB{Pool: pool, acquireTimeout: opts.AcquireTimeout, statementTimeout: opts.StatementTimeout,
		metrics: m, display: opts.DisplayURL, connString: opts.ConnString}
	db.background, db.stop = context.WithCancel(context.Background())
	if db.statementTimeout <= 0 {
		db.statementTimeout = DefaultStatementTimeout
	}
	if err := db.waitForDatabase(ctx, opts.StartupTimeout, startupSetting(opts.StartupSetting), opts.Logger); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// jitOff turns PostgreSQL's JIT compilation off for the pool's sessions,
// unless the database URL sets jit itself (a URL parameter pgx sends as a
// run-time setting). JIT compiles a statement whose estimated cost is
// above jit_above_cost, again at every execution: the claims' plans pass
// that bound once their tables hold a few hundred thousand rows, and then
// each claim spent 1.5 s compiling a few hundred functions for a
// statement that runs in milliseconds (the soak's delivery fell from
// 1,000 rows a second to under 100 within three minutes). No statement of
// QueueBox reads enough rows for JIT to pay.
func jitOff(cfg *pgxpool.Config) {
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
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

// startupSetting is the name of the setting that bounds the start.
func startupSetting(named string) string {
	if named == "" {
		return "database.startupTimeoutMs"
	}
	return named
}

func (db *DB) waitForDatabase(ctx context.Context, bound time.Duration, setting string, log *slog.Logger) error {
	deadline := time.Now().Add(bound)
	delay := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		pingCtx, cancel := context.WithTimeout(ctx, attemptBudget(time.Until(deadline)))
		err := db.Pool.Ping(pingCtx)
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
		wait, ok := startupWait(time.Until(deadline), delay)
		if !ok {
			return fmt.Errorf("database %s did not answer within %d ms (%s): %w",
				db.display, bound.Milliseconds(), setting, err)
		}
		if log != nil {
			log.Warn("database not ready, retrying", "url", db.display, "attempt", attempt, "err", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("database %s: start cancelled: %w", db.display, ctx.Err())
		case <-time.After(wait):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

// startupWait returns the pause before the next attempt of the start: the
// backoff delay, cut short so that the last attempt runs when the startup
// timeout ends instead of giving up while time is left; false once no
// time is left.
func startupWait(left, delay time.Duration) (time.Duration, bool) {
	if left <= 0 {
		return 0, false
	}
	return min(delay, left), true
}

// attemptBudget bounds one attempt of the start: at most 5 s, and a short
// moment even for the attempt at the end of the startup timeout.
func attemptBudget(left time.Duration) time.Duration {
	return min(5*time.Second, max(left, 250*time.Millisecond))
}

// Acquire takes a connection, waiting at most the acquire timeout. The
// caller releases it.
func (db *DB) Acquire(ctx context.Context) (*pgxpool.Conn, error) {
	actx := ctx
	if db.acquireTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeoutCause(ctx, db.acquireTimeout, ErrAcquireTimeout)
		defer cancel()
	}
	conn, err := db.Pool.Acquire(actx)
	if err != nil {
		err = interpretError(actx, nil, err)
		if errors.Is(err, ErrAcquireTimeout) {
			db.metrics.timeouts.Inc()
		}
		return nil, err
	}
	return conn, nil
}

// WithConn runs fn on a pooled connection and releases it afterwards. The
// error of fn comes back through interpretError: pgx.ErrNoRows wraps
// errNotFound, a data exception is a *queuebox.RefusedValueError, a
// failure on a connection that closed is a *brokenConnError. When ctx
// ends, the statement in fn is cancelled and the connection, if pgx cannot
// recover it, leaves the pool.
func (db *DB) WithConn(ctx context.Context, fn func(*pgxpool.Conn) error) error {
	conn, err := db.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	return interpretError(ctx, conn, fn(conn))
}

// withLiveConn runs fn like WithConn, again on another connection each
// time the one it got turns out to be broken: the server ended its session
// while it sat idle in the pool (a restart, a failover, a terminated
// backend), and the database may well answer on a new one. A database
// that does not answer fails at once, since no connection opens. Without
// a deadline on ctx, the statement timeout bounds the whole run. fn must
// be safe to run twice; retried reports whether it ran more than once.
func (db *DB) withLiveConn(ctx context.Context, fn func(context.Context, *pgxpool.Conn) error) (retried bool, err error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, db.statementTimeout)
		defer cancel()
	}
	// Each broken connection leaves the pool on release, so at most the
	// pool size of them can be met in a row.
	for try := 0; ; try++ {
		err = db.WithConn(ctx, func(conn *pgxpool.Conn) error { return fn(ctx, conn) })
		var broken *brokenConnError
		if !errors.As(err, &broken) || ctx.Err() != nil || try >= int(db.Pool.Config().MaxConns) {
			return try > 0, err
		}
	}
}

// WithTx runs fn in a transaction: commit when fn returns nil, roll back
// otherwise.
func (db *DB) WithTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return db.withTx(ctx, once, func(_ context.Context, tx pgx.Tx) error { return fn(tx) })
}

func (db *DB) withTx(ctx context.Context, r repeat, fn func(context.Context, pgx.Tx) error) error {
	return db.on(ctx, r, func(ctx context.Context, conn *pgxpool.Conn) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return fn(ctx, tx) })
	})
}

// claimSetting is the planner setting of the claims and the routing scan:
// statements that read a queue's index in its order and stop at a limit.
// On a partitioned table, each partition's statistics are its own, and a
// partition that autovacuum analyzed while nearly all of its rows were
// finished (deliver kept up, then a receiver failed) has statistics that
// put its pending rows near zero. Planned on those, an ordered read with a
// limit across the partitions became an append of every partition's
// matching entries and a sort, and so read the whole backlog, once per
// probe of the lanes' walk. With sorting discouraged the planner merges
// the partitions' indexes in order instead; a sort remains where no index
// gives the order (the hints of a claim, a handful of rows). JIT goes off
// with it whatever the database URL says (see jitOff): the sorts a claim
// needs anyway, discouraged, put its estimated cost far above
// jit_above_cost, and the server would compile it at every claim.
const claimSetting = "SET LOCAL enable_sort = off; SET LOCAL jit = off"

// claimSettingInBatch is claimSetting for a pipelined batch: its
// statements share the batch's implicit transaction, where SET LOCAL
// holds until the batch's end but warns, for each claim, that it is not
// in a transaction block (a WARNING in the server's log several times a
// second). set_config with is_local holds as long and warns of nothing.
//
// It also keeps the generic plan of the statement, made once per
// connection: with the discouraged sorts in its estimate, PostgreSQL found
// every generic plan dearer than the custom ones and planned deliver's
// claim anew at each call, 2 to 4 ms of the server's CPU for a statement
// of this size, about as much as running it (performance.md, round four).
// The claims read their indexes in order from bounds that are parameters,
// so no value of them changes the right plan; the bench's claim rows at
// 200,000 pending rows and on a partitioned 1,000,000-row outbox ran as
// fast or faster with it. (The tests that EXPLAIN a claim see the plan
// made for their values: EXPLAIN plans its statement at each run.) The
// relay's claim, begun with ClaimBegin, keeps PostgreSQL's choice:
// generic, it drained its backlog a little slower in the same comparison.
const claimSettingInBatch = "SELECT set_config('enable_sort', 'off', true), set_config('jit', 'off', true), " +
	"set_config('plan_cache_mode', 'force_generic_plan', true)"

// ClaimBegin begins a transaction that runs under claimSetting, in one
// round trip: the relay's claim, which takes the relay lock first, and the
// tests and the bench that explain a claim as the stores run it.
const ClaimBegin = "BEGIN; " + claimSetting

// withClaimTx is withTx for a transaction begun with ClaimBegin.
func (db *DB) withClaimTx(ctx context.Context, r repeat, fn func(context.Context, pgx.Tx) error) error {
	return db.on(ctx, r, func(ctx context.Context, conn *pgxpool.Conn) error {
		return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{BeginQuery: ClaimBegin},
			func(tx pgx.Tx) error { return fn(ctx, tx) })
	})
}

// queryClaim runs one statement under claimSetting without a transaction
// of its own: the setting and the statement go in one pipelined batch,
// whose implicit transaction ends with it, so the statement costs one
// round trip as before. read gets the statement's rows and closes them.
func queryClaim(ctx context.Context, conn *pgxpool.Conn, read func(pgx.Rows) error, stmt string, args ...any) error {
	b := &pgx.Batch{}
	b.Queue(claimSettingInBatch)
	b.Queue(stmt, args...)
	br := conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		return errors.Join(err, br.Close())
	}
	rows, err := br.Query()
	if err != nil {
		return errors.Join(err, br.Close())
	}
	return errors.Join(read(rows), br.Close())
}

// Whether a statement may run again after its connection broke: the
// retry must do no harm if the broken try had committed.
type repeat bool

const (
	once       repeat = false
	repeatable repeat = true
)

// on runs fn on a connection; a repeatable fn gets another one when the
// first turns out to be broken (see withLiveConn).
func (db *DB) on(ctx context.Context, r repeat, fn func(context.Context, *pgxpool.Conn) error) error {
	if r == once {
		return db.WithConn(ctx, func(conn *pgxpool.Conn) error { return fn(ctx, conn) })
	}
	_, err := db.withLiveConn(ctx, fn)
	return err
}

// execCount runs a statement and returns how many rows it changed; what
// names the operation in the error.
func (db *DB) execCount(ctx context.Context, r repeat, what, stmt string, args ...any) (int64, error) {
	var n int64
	err := db.on(ctx, r, func(ctx context.Context, conn *pgxpool.Conn) error {
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
	_, err := db.withLiveConn(ctx, func(ctx context.Context, conn *pgxpool.Conn) error { return conn.Ping(ctx) })
	return err
}

// Display returns the database URL with its password masked.
func (db *DB) Display() string { return db.display }

// Close ends the stores' background work, then closes the pool; it waits
// for acquired connections to return.
func (db *DB) Close() {
	db.stop()
	db.Pool.Close()
}
