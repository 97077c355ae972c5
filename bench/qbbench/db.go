package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// server is the PostgreSQL server the benchmark creates its databases on.
type server struct {
	adminURL string
	host     string
	port     uint16
	user     string
	// sslmode applies to the scenario databases, in-process pools and
	// binaries alike, so both sides of a ratio use the same transport.
	sslmode string
	seq     atomic.Int64
}

func newServer(adminURL, sslmode string) (*server, error) {
	cfg, err := pgx.ParseConfig(adminURL)
	if err != nil {
		return nil, fmt.Errorf("-pg %q: %w", adminURL, err)
	}
	return &server{adminURL: adminURL, host: cfg.Host, port: cfg.Port, user: cfg.User, sslmode: sslmode}, nil
}

// exec runs one statement on the maintenance database.
func (s *server) exec(ctx context.Context, sql string) error {
	c, err := pgx.Connect(ctx, s.adminURL)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", s.host, err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	_, err = c.Exec(ctx, sql)
	return err
}

// version returns the server version and the two settings that change
// what a write costs over time (autovacuum) and per commit (fsync).
func (s *server) version(ctx context.Context) (string, error) {
	c, err := pgx.Connect(ctx, s.adminURL)
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	var v, autovacuum, fsync string
	err = c.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('autovacuum'), current_setting('fsync')`).
		Scan(&v, &autovacuum, &fsync)
	return v + " (autovacuum " + autovacuum + ", fsync " + fsync + ")", err
}

// benchDB is one fresh database with the QueueBox schema applied, and an
// in-process store pool on it.
type benchDB struct {
	srv    *server
	Name   string
	URL    string // pgx form
	JDBC   string // database.url form for the binaries
	Store  *postgres.DB
	Layout schema.Layout
}

// create makes an empty database, applies the bundled migrations with the
// store's own runner and opens a pool of poolSize connections on it.
func (s *server) create(ctx context.Context, tag string, poolSize int) (*benchDB, error) {
	name := fmt.Sprintf("qbbench_%d_%s_%d", os.Getpid(), tag, s.seq.Add(1))
	if err := s.exec(ctx, "CREATE DATABASE "+name); err != nil {
		return nil, fmt.Errorf("create database %s: %w", name, err)
	}
	d := &benchDB{
		srv:    s,
		Name:   name,
		URL:    fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=%s", s.user, s.host, s.port, name, s.sslmode),
		JDBC:   fmt.Sprintf("jdbc:postgresql://%s:%d/%s?sslmode=%s", s.host, s.port, name, s.sslmode),
		Layout: schema.New(schema.Postgres, schema.DefaultNames()),
	}
	var err error
	d.Store, err = postgres.Open(ctx, postgres.Options{
		// The name tells the bench's own sessions from those of the
		// processes it measures (benchDB.settle).
		ConnString: d.URL + "&application_name=" + benchAppName, DisplayURL: d.URL, PoolSize: poolSize,
		AcquireTimeout: 30 * time.Second, StartupTimeout: 10 * time.Second, PoolName: "qbbench",
	})
	if err != nil {
		d.drop()
		return nil, err
	}
	if _, err := d.Store.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		d.drop()
		return nil, fmt.Errorf("migrate %s: %w", name, err)
	}
	return d, nil
}

// drop closes the pool and drops the database, closing every session on
// it (WITH (FORCE)). It runs on a fresh context so it also cleans up after
// an interrupt.
func (d *benchDB) drop() {
	if d.Store != nil {
		d.Store.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.srv.exec(ctx, "DROP DATABASE IF EXISTS "+d.Name+" WITH (FORCE)"); err != nil {
		logf("warning: drop database %s: %v", d.Name, err)
	}
}

// env returns the database variables of the binaries, with poolSize.
func (d *benchDB) env(poolSize int) map[string]string {
	return map[string]string{
		"QUEUEBOX_DATABASE_URL":      d.JDBC,
		"QUEUEBOX_DATABASE_USERNAME": d.srv.user,
		"QUEUEBOX_DATABASE_PASSWORD": "unused-trust-auth",
		"QUEUEBOX_DATABASE_POOLSIZE": fmt.Sprint(poolSize),
	}
}

func (d *benchDB) exec(ctx context.Context, sql string, args ...any) error {
	_, err := d.Store.Pool.Exec(ctx, sql, args...)
	return err
}

// vacuumAnalyze runs VACUUM ANALYZE on a table, as an operator would after
// a bulk load, so plans and visibility maps match a steady state.
func (d *benchDB) vacuumAnalyze(ctx context.Context, table string) error {
	if err := d.exec(ctx, "VACUUM ANALYZE "+table); err != nil {
		return fmt.Errorf("vacuum analyze %s: %w", table, err)
	}
	return nil
}

// insertOutbox adds rows pending outbox rows in one set-based statement,
// as an application writes them (no destination yet). keys = 0 leaves
// every key NULL; otherwise row g gets key g mod keys, so each key holds
// rows/keys rows in sequence order. The topic is bench.event and the
// payload a small JSON object.
func (d *benchDB) insertOutbox(ctx context.Context, rows, keys int) error {
	return d.insertOutboxTo(ctx, rows, keys, "")
}

// benchDestination is the destination of the receiver (destinationEnv).
const benchDestination = "webhook"

// insertOutboxTo is insertOutbox with dest, when set, as the destination
// of the keyed rows, as deliver's routing step writes it before any
// claim. The in-process loops claim through the store alone, and the
// claim takes a keyed row only once it has its destination, its lane.
func (d *benchDB) insertOutboxTo(ctx context.Context, rows, keys int, dest string) error {
	err := d.exec(ctx, `
		INSERT INTO outbox (topic, key, payload, destination)
		SELECT 'bench.event',
		       CASE WHEN $2::int = 0 THEN NULL ELSE 'key-' || lpad((g % $2::int)::text, 5, '0') END,
		       jsonb_build_object('n', g, 'kind', 'bench', 'amount', g % 1000),
		       CASE WHEN $2::int = 0 THEN '' ELSE $3 END
		FROM generate_series(1, $1::int) AS g
		ORDER BY g`, rows, keys, dest)
	if err != nil {
		return fmt.Errorf("insert %d outbox rows: %w", rows, err)
	}
	return d.vacuumAnalyze(ctx, "outbox")
}

// insertInbox adds rows pending push rows of source to the inbox, their
// aggregates spread round-robin over aggregates ids and their creation
// times one millisecond apart in the past, so the relay order is defined.
func (d *benchDB) insertInbox(ctx context.Context, source string, rows, aggregates int) error {
	err := d.exec(ctx, `
		INSERT INTO inbox (source, idempotency_key, aggregate_id, event_type, payload, headers,
		                   consumption, state, created_at)
		SELECT $1, 'evt-' || g, 'agg-' || (g % $3::int), 'bench.created',
		       jsonb_build_object('id', 'evt-' || g, 'type', 'bench.created', 'customer', 'agg-' || (g % $3::int)),
		       '{"content-type":"application/json"}', 'push', 'pending',
		       now() - ($2::int - g) * interval '1 millisecond'
		FROM generate_series(1, $2::int) AS g
		ORDER BY g`, source, rows, aggregates)
	if err != nil {
		return fmt.Errorf("insert %d inbox rows: %w", rows, err)
	}
	return d.vacuumAnalyze(ctx, "inbox")
}

// insertInboxRuns adds rows pending push rows of aggregates ids, each
// aggregate's rows together in created_at order (a backlog in runs, as
// a burst or an outage leaves it), into an inbox analyzed while empty and
// left so: its statistics predate the backlog, as a table's do until
// autovacuum analyzes it. Autovacuum is off for the table.
func (d *benchDB) insertInboxRuns(ctx context.Context, source string, rows, aggregates int) error {
	if err := d.exec(ctx, `ALTER TABLE inbox SET (autovacuum_enabled = false)`); err != nil {
		return err
	}
	if err := d.vacuumAnalyze(ctx, "inbox"); err != nil {
		return err
	}
	per := max(rows/aggregates, 1)
	err := d.exec(ctx, `
		INSERT INTO inbox (source, idempotency_key, aggregate_id, event_type, payload, headers,
		                   consumption, state, created_at)
		SELECT $1, 'evt-' || g, 'agg-' || ((g - 1) / $3::int), 'bench.created',
		       jsonb_build_object('id', 'evt-' || g, 'type', 'bench.created', 'customer', 'agg-' || ((g - 1) / $3::int)),
		       '{"content-type":"application/json"}', 'push', 'pending',
		       now() - ($2::int - g) * interval '1 millisecond'
		FROM generate_series(1, $2::int) AS g
		ORDER BY g`, source, rows, per)
	if err != nil {
		return fmt.Errorf("insert %d inbox rows in runs: %w", rows, err)
	}
	return nil
}

// window is the span of a drain read from the rows themselves: the first
// claim and the last outcome, as the database clock recorded them.
type window struct {
	Rows        int64
	First, Last time.Time
}

// rate returns rows per second over the window.
func (w window) rate() float64 {
	secs := w.Last.Sub(w.First).Seconds()
	if w.Rows == 0 || secs <= 0 {
		return 0
	}
	return float64(w.Rows) / secs
}

// outboxWindow reads the rows sent from a claim at or after since (the
// zero time for all): how many, the earliest claimed_at and the latest
// updated_at (the finish statement sets it).
func (d *benchDB) outboxWindow(ctx context.Context, since time.Time) (window, error) {
	var w window
	var first, last *time.Time
	err := d.Store.Pool.QueryRow(ctx, `
		SELECT count(*), min(claimed_at), max(updated_at) FROM outbox
		WHERE state = 'sent' AND claimed_at >= $1`, since).
		Scan(&w.Rows, &first, &last)
	if err != nil || first == nil || last == nil {
		return w, err
	}
	w.First, w.Last = *first, *last
	return w, nil
}

// now returns the database clock.
func (d *benchDB) now(ctx context.Context) (time.Time, error) {
	var t time.Time
	err := d.Store.Pool.QueryRow(ctx, `SELECT now()`).Scan(&t)
	return t, err
}

// unfinishedOutbox counts the outbox rows that are still pending or processing;
// the partial index on those states keeps it cheap near the end of a drain.
func (d *benchDB) unfinishedOutbox(ctx context.Context) (int64, error) {
	var n int64
	err := d.Store.Pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE state IN ('pending', 'processing')`).Scan(&n)
	return n, err
}

// ledgerRows counts the rows of the delivery ledger (migration V17), and
// those of sent attempts.
func (d *benchDB) ledgerRows(ctx context.Context) (all, sent int64, err error) {
	err = d.Store.Pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE outcome = 'sent') FROM outbox_attempts`).
		Scan(&all, &sent)
	return all, sent, err
}
