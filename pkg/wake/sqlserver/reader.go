// Package sqlserver is the SQL Server side of the wake-ups. SQL Server has
// no LISTEN/NOTIFY, so capture sqlserver-cdc (pkg/capture/sqlserver)
// creates a wake row keyed by wake.Channel and bumps its generation after
// new inserts, and every deliver replica runs a Poller that reads the row
// by its primary key and wakes delivery when the generation moves. The
// store set offers the Poller (pkg/store/sqlserver WakeSource).
package sqlserver

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/alternayte/queuebox/pkg/wake"
)

// DB is the part of the database that the reader needs; the DB of
// pkg/capture/sqlserver fits. Implementations must be safe for concurrent
// use.
type DB interface {
	// QueryRow runs a query that answers one row and scans it into dest;
	// it returns ErrNoRows when there is none.
	QueryRow(ctx context.Context, query string, args []any, dest ...any) error
}

// ErrNoRows is what DB.QueryRow returns for an empty answer.
var ErrNoRows = errors.New("no rows")

//go:embed queries/wake_read.sql
var wakeReadSQL string

// WakeReader is the deliver side: it reads the wake row and reports a
// change of generation.
type WakeReader struct {
	db   DB
	sql  string
	last int64
}

// NewWakeReader returns the reader of the wake row on db.
func NewWakeReader(db DB) *WakeReader {
	return &WakeReader{db: db, sql: wakeReadSQL, last: -1}
}

// Changed reads the generation and says whether it moved since the last
// call (the first call counts as a change, so a replica claims once at
// start). A missing row reads as generation 0. It is not safe for
// concurrent use.
func (w *WakeReader) Changed(ctx context.Context) (bool, error) {
	var g int64
	err := w.db.QueryRow(ctx, w.sql, []any{wake.Channel}, &g)
	if err != nil && !errors.Is(err, ErrNoRows) {
		return false, fmt.Errorf("read the wake row: %w", err)
	}
	changed := g != w.last
	w.last = g
	return changed, nil
}
