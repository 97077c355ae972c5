package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// errNotFound reports a statement that returned no row where the caller
// reads one: a duplicate insert (ON CONFLICT DO NOTHING returns nothing)
// or a lookup of a row that is gone. It wraps pgx.ErrNoRows.
var errNotFound = errors.New("no row")

// brokenConnError is a statement that failed because its connection is
// closed: the server ended the session (a restart, a failover, a
// terminated backend), possibly while it sat idle in the pool. Whether
// the statement committed is unknown; withLiveConn repeats a statement
// that is safe to repeat on another connection.
type brokenConnError struct{ err error }

func (e *brokenConnError) Error() string { return e.err.Error() }
func (e *brokenConnError) Unwrap() error { return e.err }

// interpretError is the one place that reads driver errors and turns them
// into the errors the store reports. ctx is the context the call ran
// under (for an acquire, the one bounded by the acquire timeout); conn is
// the connection the statement ran on, nil when none was acquired. An
// error it does not know passes unchanged.
//
//   - the acquire's own timeout, not the caller's context: ErrAcquireTimeout
//   - pgx.ErrNoRows: errNotFound (wrapping it)
//   - SQLSTATE class 22, data exception: *queuebox.RefusedValueError, a
//     value of the row that fails on every try
//   - any error on a connection that is now closed: *brokenConnError
func interpretError(ctx context.Context, conn *pgxpool.Conn, err error) error {
	if err == nil {
		return nil
	}
	if conn == nil && errors.Is(context.Cause(ctx), ErrAcquireTimeout) {
		return ErrAcquireTimeout
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %w", errNotFound, err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && len(pgErr.Code) == 5 && pgErr.Code[:2] == "22" {
		reason := pgErr.Message
		if pgErr.Detail != "" {
			reason += ": " + pgErr.Detail
		}
		return &queuebox.RefusedValueError{Reason: reason, Err: err}
	}
	if conn != nil && conn.Conn().IsClosed() {
		return &brokenConnError{err: err}
	}
	return err
}
