// Package sqlserver is the sqlserver-cdc capture mode: it checks that
// change data capture is on for the database and the outbox table, reads
// the change tables from the stored LSN, and wakes the deliver replicas
// through a wake row, because SQL Server has no LISTEN/NOTIFY.
//
// It is written against a small DB interface and is not wired: this build
// has no SQL Server driver or store (pkg/store refuses database.type
// sqlserver), so none of it has run against a server.
package sqlserver

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"text/template"
)

//go:embed queries/*.sql
var queries embed.FS

// DB is what the connector needs of database/sql (*sql.DB fits through
// a thin adapter). Implementations must be safe for concurrent use.
type DB interface {
	// QueryRow runs a query that answers one row and scans it into dest;
	// it returns ErrNoRows when there is none.
	QueryRow(ctx context.Context, query string, args []any, dest ...any) error
	Exec(ctx context.Context, query string, args ...any) error
}

// ErrNoRows is what DB.QueryRow returns for an empty answer.
var ErrNoRows = errors.New("no rows")

// Channel is the wake row of the outbox.
const Channel = "queuebox_outbox_wake"

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Statement returns one embedded statement, rendered for instance.
func Statement(name, instance string) (string, error) {
	text, err := queries.ReadFile("queries/" + name + ".sql")
	if err != nil {
		return "", err
	}
	t, err := template.New(name).Option("missingkey=error").Parse(string(text))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, map[string]string{"Instance": instance}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Connector reads the change tables of one capture instance.
type Connector struct {
	db       DB
	schema   string
	table    string
	instance string
	sql      map[string]string
}

// New renders the statements. The capture instance is SQL Server's
// default, <schema>_<table>.
func New(db DB, schema, table string) (*Connector, error) {
	if !identifier.MatchString(schema) || !identifier.MatchString(table) {
		return nil, fmt.Errorf("sqlserver capture: schema %q and table %q must be SQL identifiers", schema, table)
	}
	c := &Connector{db: db, schema: schema, table: table, instance: schema + "_" + table, sql: map[string]string{}}
	for _, name := range []string{"cdc_database_enabled", "cdc_table_enabled", "cdc_max_lsn", "cdc_min_lsn",
		"cdc_inserts", "wake_table", "wake_bump", "wake_read"} {
		s, err := Statement(name, c.instance)
		if err != nil {
			return nil, err
		}
		c.sql[name] = s
	}
	return c, nil
}

// Check returns a clear error unless change data capture is enabled on
// the database and tracks the outbox table; run it before the connector
// starts, so it does not fail in a loop.
func (c *Connector) Check(ctx context.Context) error {
	var on int
	err := c.db.QueryRow(ctx, c.sql["cdc_database_enabled"], nil, &on)
	if err != nil && !errors.Is(err, ErrNoRows) {
		return fmt.Errorf("check change data capture on the database: %w", err)
	}
	if on != 1 {
		return errors.New("change data capture is not enabled on this database: run EXEC sys.sp_cdc_enable_db (the SQL Server Agent must run)")
	}
	on = 0
	err = c.db.QueryRow(ctx, c.sql["cdc_table_enabled"], []any{c.schema, c.table}, &on)
	if errors.Is(err, ErrNoRows) {
		return fmt.Errorf("the outbox table %s.%s does not exist", c.schema, c.table)
	}
	if err != nil {
		return fmt.Errorf("check change data capture on %s.%s: %w", c.schema, c.table, err)
	}
	if on != 1 {
		return fmt.Errorf("change data capture does not track %s.%s: run EXEC sys.sp_cdc_enable_table @source_schema = N'%s', @source_name = N'%s', @role_name = NULL, @supports_net_changes = 0",
			c.schema, c.table, c.schema, c.table)
	}
	return c.db.Exec(ctx, c.sql["wake_table"])
}

// Poll reads the inserts after from (the stored LSN; nil on a first
// start, which begins at the lowest LSN still held), bumps the wake row
// when there were any, and returns the LSN to store next.
func (c *Connector) Poll(ctx context.Context, from []byte) (next []byte, inserts int64, err error) {
	var max []byte
	if err := c.db.QueryRow(ctx, c.sql["cdc_max_lsn"], nil, &max); err != nil {
		return from, 0, fmt.Errorf("read the highest change LSN: %w", err)
	}
	if from == nil {
		if err := c.db.QueryRow(ctx, c.sql["cdc_min_lsn"], []any{c.instance}, &from); err != nil {
			return nil, 0, fmt.Errorf("read the lowest change LSN of %s: %w", c.instance, err)
		}
	}
	if max == nil || string(max) <= string(from) {
		return from, 0, nil // nothing new; LSNs are binary(10), compared bytewise
	}
	if err := c.db.QueryRow(ctx, c.sql["cdc_inserts"], []any{from, max}, &inserts); err != nil {
		return from, 0, fmt.Errorf("read the changes of %s: %w", c.instance, err)
	}
	if inserts > 0 {
		if err := c.db.Exec(ctx, c.sql["wake_bump"], Channel); err != nil {
			return from, inserts, fmt.Errorf("bump the wake row: %w", err)
		}
	}
	return max, inserts, nil
}

// WakeReader is the deliver side: it reads the wake row and reports a
// change of generation.
type WakeReader struct {
	db   DB
	sql  string
	last int64
}

// NewWakeReader returns the reader.
func NewWakeReader(db DB) (*WakeReader, error) {
	s, err := Statement("wake_read", "")
	if err != nil {
		return nil, err
	}
	return &WakeReader{db: db, sql: s, last: -1}, nil
}

// Changed reads the generation and says whether it moved since the last
// call (the first call counts as a change, so a replica claims once at
// start). It is not safe for concurrent use.
func (w *WakeReader) Changed(ctx context.Context) (bool, error) {
	var g int64
	err := w.db.QueryRow(ctx, w.sql, []any{Channel}, &g)
	if err != nil && !errors.Is(err, ErrNoRows) {
		return false, fmt.Errorf("read the wake row: %w", err)
	}
	changed := g != w.last
	w.last = g
	return changed, nil
}
