// Package sqlfake is a database/sql driver for tests that records every
// statement and answers each from a script: rows, a row count or an
// error (a go-mssqldb mssql.Error{Number: 1205} among them). It lets the
// SQL Server store's Go decisions (which statement runs, what is tried
// again, how rows map to domain types) be tested without a server. It
// parses no SQL: the script decides by the text it is given.
package sqlfake

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"sync"
)

// Markers of the transaction steps in the log.
const (
	Begin    = "BEGIN"
	Commit   = "COMMIT"
	Rollback = "ROLLBACK"
)

// Call is one statement as the driver received it: its arguments in
// order, and those passed as sql.Named also by name.
type Call struct {
	SQL   string
	Args  []any
	Named map[string]any
}

// Result is the script's answer to one statement. Err fails it; else a
// query returns Columns and Rows and an exec reports Affected.
type Result struct {
	Columns  []string
	Rows     [][]any
	Affected int64
	Err      error
}

// Script answers one statement. It is called from the goroutine of the
// statement, one call at a time per connection.
type Script func(c Call) Result

// DB is a fake database: the *sql.DB over it and its log. It is safe for
// concurrent use.
type DB struct {
	SQL    *sql.DB
	mu     sync.Mutex
	calls  []Call
	script Script
}

// Open returns a fake database answering with script; the caller closes
// DB.SQL.
func Open(script Script) *DB {
	d := &DB{script: script}
	d.SQL = sql.OpenDB(connector{d})
	return d
}

// Calls returns the statements and transaction steps so far, in order.
func (d *DB) Calls() []Call {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Call(nil), d.calls...)
}

// Steps returns, for each call, the first marker of markers its SQL
// contains (or the SQL itself when none does): a short trace to compare.
func (d *DB) Steps(markers ...string) []string {
	var out []string
	for _, c := range d.Calls() {
		step := c.SQL
		for _, m := range markers {
			if strings.Contains(c.SQL, m) {
				step = m
				break
			}
		}
		out = append(out, step)
	}
	return out
}

func (d *DB) run(sqlText string, args []driver.NamedValue) Result {
	c := Call{SQL: sqlText}
	for _, a := range args {
		c.Args = append(c.Args, a.Value)
		if a.Name != "" {
			if c.Named == nil {
				c.Named = map[string]any{}
			}
			c.Named[a.Name] = a.Value
		}
	}
	d.mu.Lock()
	d.calls = append(d.calls, c)
	d.mu.Unlock()
	if sqlText == Begin || sqlText == Commit || sqlText == Rollback {
		return Result{}
	}
	return d.script(c)
}

type connector struct{ d *DB }

func (c connector) Connect(context.Context) (driver.Conn, error) { return &conn{d: c.d}, nil }
func (c connector) Driver() driver.Driver                        { return fakeDriver{} }

type fakeDriver struct{}

func (fakeDriver) Open(string) (driver.Conn, error) {
	return nil, errors.New("sqlfake: open through sqlfake.Open")
}

type conn struct{ d *DB }

var (
	_ driver.ExecerContext     = (*conn)(nil)
	_ driver.QueryerContext    = (*conn)(nil)
	_ driver.ConnBeginTx       = (*conn)(nil)
	_ driver.Pinger            = (*conn)(nil)
	_ driver.NamedValueChecker = (*conn)(nil)
)

func (c *conn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("sqlfake: statements run unprepared")
}
func (c *conn) Close() error              { return nil }
func (c *conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }
func (c *conn) Ping(context.Context) error {
	return nil
}

// CheckNamedValue accepts any argument as it is, so the log shows what
// the store passed.
func (c *conn) CheckNamedValue(*driver.NamedValue) error { return nil }

func (c *conn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) {
	c.d.run(Begin, nil)
	return tx{c.d}, nil
}

func (c *conn) ExecContext(_ context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	r := c.d.run(q, args)
	if r.Err != nil {
		return nil, r.Err
	}
	return driver.RowsAffected(r.Affected), nil
}

func (c *conn) QueryContext(_ context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	r := c.d.run(q, args)
	if r.Err != nil {
		return nil, r.Err
	}
	return &rows{cols: r.Columns, data: r.Rows}, nil
}

type tx struct{ d *DB }

func (t tx) Commit() error   { t.d.run(Commit, nil); return nil }
func (t tx) Rollback() error { t.d.run(Rollback, nil); return nil }

type rows struct {
	cols []string
	data [][]any
	next int
}

func (r *rows) Columns() []string {
	if r.cols == nil && len(r.data) > 0 {
		cols := make([]string, len(r.data[0]))
		for i := range cols {
			cols[i] = "c"
		}
		return cols
	}
	return r.cols
}
func (r *rows) Close() error { return nil }
func (r *rows) Next(dest []driver.Value) error {
	if r.next >= len(r.data) {
		return io.EOF
	}
	for i, v := range r.data[r.next] {
		dest[i] = v
	}
	r.next++
	return nil
}
