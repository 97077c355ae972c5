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

// refusedLogins are the answers to a connection that no retry changes,
// with what to check: the server refused the login or the database.
// A server that is starting up (57P03) or that refuses connections to
// the database for a while (55000, ALLOW_CONNECTIONS false) is not
// among them: the start waits for those.
var refusedLogins = map[string]string{
	// No such role, or no pg_hba.conf entry admits it.
	"28000": "check database.username (QUEUEBOX_DATABASE_USERNAME) and that the server's pg_hba.conf admits it from this host",
	"28P01": "check database.username (QUEUEBOX_DATABASE_USERNAME) and database.password (QUEUEBOX_DATABASE_PASSWORD)",
	"3D000": "check the database name in database.url (QUEUEBOX_DATABASE_URL)",
	// No CONNECT privilege on the database.
	"42501": "grant the account CONNECT on the database",
}

// refusal returns the error of a start that the server refused for good
// (refusedLogins), its reason first and then the database (display, its
// password masked) and what to check; nil for any other error.
func refusal(err error, display string) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return nil
	}
	hint, ok := refusedLogins[pgErr.Code]
	if !ok {
		return nil
	}
	return &refusedError{err: err,
		text: fmt.Sprintf("%s (SQLSTATE %s): database %s refused the connection; %s", pgErr.Message, pgErr.Code, display, hint)}
}

// refusedError is a refusal: its text leads with the server's reason and
// it unwraps to the driver's error.
type refusedError struct {
	text string
	err  error
}

func (e *refusedError) Error() string { return e.text }
func (e *refusedError) Unwrap() error { return e.err }
