package queuebox

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// A fake database/sql driver, small enough to keep this module free of
// dependencies: it records each statement and its named arguments and
// answers from a script. It checks what the library decides on SQL
// Server (no server runs in these tests): where the claim runs, what it
// binds, how Msg 51000 is read.

type fakeCall struct {
	sql  string
	args map[string]any
}

type fakeDB struct {
	mu     sync.Mutex
	calls  []fakeCall
	answer func(sql string) ([][]driver.Value, error)
}

func (f *fakeDB) record(q string, args []driver.NamedValue) {
	c := fakeCall{sql: q, args: map[string]any{}}
	for _, a := range args {
		c.args[a.Name] = a.Value
	}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
}

// steps names each call: BEGIN, COMMIT, ROLLBACK or the statement's first
// line.
func (f *fakeDB) steps() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, strings.SplitN(c.sql, "\n", 2)[0])
	}
	return out
}

func (f *fakeDB) Connect(context.Context) (driver.Conn, error) { return fakeConn{f}, nil }
func (f *fakeDB) Driver() driver.Driver                        { return nil }

type fakeConn struct{ f *fakeDB }

func (c fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("unprepared only") }
func (c fakeConn) Close() error                        { return nil }
func (c fakeConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx records the isolation level the library asks for.
func (c fakeConn) BeginTx(_ context.Context, o driver.TxOptions) (driver.Tx, error) {
	c.f.record(fmt.Sprintf("BEGIN %s", sql.IsolationLevel(o.Isolation)), nil)
	return fakeTx(c), nil
}
func (c fakeConn) CheckNamedValue(*driver.NamedValue) error {
	return nil
}

func (c fakeConn) QueryContext(_ context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.f.record(q, args)
	rows, err := c.f.answer(q)
	if err != nil {
		return nil, err
	}
	return &fakeRows{data: rows}, nil
}

func (c fakeConn) ExecContext(_ context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.f.record(q, args)
	return driver.RowsAffected(0), nil
}

type fakeTx fakeConn

func (t fakeTx) Commit() error   { t.f.record("COMMIT", nil); return nil }
func (t fakeTx) Rollback() error { t.f.record("ROLLBACK", nil); return nil }

type fakeRows struct {
	data [][]driver.Value
	next int
}

func (r *fakeRows) Columns() []string {
	return []string{"id", "source", "key", "agg", "event", "payload", "headers", "attempt", "corr", "token"}
}
func (r *fakeRows) Close() error { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if r.next >= len(r.data) {
		return io.EOF
	}
	copy(dest, r.data[r.next])
	r.next++
	return nil
}

// numberedError is what go-mssqldb's errors look like to the library.
type numberedError int32

func (e numberedError) Error() string         { return fmt.Sprintf("mssql: error %d", int32(e)) }
func (e numberedError) SQLErrorNumber() int32 { return int32(e) }

func fakeStore(t *testing.T, d Dialect, answer func(string) ([][]driver.Value, error)) (*store, *fakeDB) {
	t.Helper()
	f := &fakeDB{answer: answer}
	db := sql.OpenDB(f)
	t.Cleanup(func() { _ = db.Close() })
	schema := DefaultSchema()
	s, err := newStore(db, Options{Source: "stripe", Dialect: d, Schema: &schema, LeaseMS: 30000})
	if err != nil {
		t.Fatal(err)
	}
	return s, f
}

func claimedRows(string) ([][]driver.Value, error) {
	return [][]driver.Value{{"r1", "stripe", "evt_1", "order-1", nil, `{"a":1}`, `{"h":"v"}`, int64(2), nil, "tok-1"}}, nil
}

func TestSQLServerClaimRunsOutsideAnyTransactionWithNamedParameters(t *testing.T) {
	t.Parallel()
	s, f := fakeStore(t, DialectSQLServer, claimedRows)
	got, err := s.claimRows(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	// The batch opens and commits its own transaction (it takes the
	// per-source application lock owned by it): the library opens none.
	if steps := f.steps(); len(steps) != 1 || !strings.Contains(f.calls[0].sql, "sp_getapplock") {
		t.Fatalf("steps %q, want the claim batch alone", steps)
	}
	args := f.calls[0].args
	want := map[string]any{"source": "stripe", "batch": int64(7), "lease_ms": int64(30000), "cand_limit": int64(candLimit(7))}
	for k, v := range want {
		if fmt.Sprint(args[k]) != fmt.Sprint(v) {
			t.Errorf("@%s = %v, want %v (all: %v)", k, args[k], v, args)
		}
	}
	if !strings.Contains(f.calls[0].sql, "@LockOwner = 'Transaction'") || !strings.Contains(f.calls[0].sql, "@LockTimeout = 10000") {
		t.Error("the claim batch takes no transaction-owned application lock with a 10 s timeout")
	}
	if len(got) != 1 || got[0].token != "tok-1" || *got[0].msg.AggregateID != "order-1" || got[0].msg.EventType != nil ||
		got[0].msg.Headers["h"] != "v" || got[0].msg.Attempt != 2 {
		t.Fatalf("claimed %+v", got)
	}
}

func TestPostgreSQLClaimRunsInAReadCommittedTransactionWithSortingOff(t *testing.T) {
	t.Parallel()
	s, f := fakeStore(t, DialectPostgreSQL, claimedRows)
	if _, err := s.claimRows(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	steps := f.steps()
	if len(steps) != 4 || steps[0] != "BEGIN Read Committed" || steps[1] != claimSetting || steps[3] != "COMMIT" {
		t.Fatalf("steps %q, want BEGIN (read committed), the contract's settings, the claim, COMMIT", steps)
	}
}

func TestSQLServerClaimLockTimeoutIsTransient(t *testing.T) {
	t.Parallel()
	s, _ := fakeStore(t, DialectSQLServer, func(string) ([][]driver.Value, error) {
		return nil, fmt.Errorf("claim: %w", numberedError(51000))
	})
	_, err := s.claimRows(context.Background(), 1)
	if !lockTimeout(err) {
		t.Fatalf("Msg 51000 not read as the lock timeout: %v", err)
	}
	for _, other := range []error{numberedError(1205), errors.New("connection reset"), nil} {
		if lockTimeout(other) {
			t.Errorf("%v read as the lock timeout", other)
		}
	}
}
