package sqlserver

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// errNotFound reports a statement that returned no row where the caller
// reads one: a duplicate insert (the NOT EXISTS guard inserts nothing)
// or a lookup of a row that is gone. It wraps sql.ErrNoRows.
var errNotFound = errors.New("no row")

// errDuplicate is an insert that a unique index refused (2601, 2627): for
// the inbox, another insert of the same idempotency key won the race.
var errDuplicate = errors.New("duplicate key")

// transientError is a statement that SQL Server rolled back because of
// another session's locks: a deadlock victim (1205), a lock wait past
// LOCK_TIMEOUT (1222), or a claim lock that sp_getapplock did not grant
// within its 10 s (51000, raised by the claim lock statements). Its fate
// is known, nothing of it committed, so DB.on tries it again, as the
// PostgreSQL store's callers see a serialization failure of a repeatable
// statement go away on its own.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

func isTransient(err error) bool {
	var t *transientError
	return errors.As(err, &t)
}

// The SQL Server error numbers the store acts on.
const (
	errDeadlockVictim  = 1205
	errLockTimeout     = 1222
	errClaimLockDenied = 51000
	errUniqueIndex     = 2601
	errUniqueKey       = 2627
)

// refusedValues are the errors of a value of the row itself, which fail
// on every try: conversions (245, 8114, 8169 uniqueidentifier, 241 and
// 242 dates), arithmetic overflow (8115), a value wider than its column
// (8152, and 2628 that names the column), JSON that OPENJSON or ISJSON
// cannot read (13609).
var refusedValues = map[int32]bool{
	241: true, 242: true, 245: true, 8114: true, 8115: true, 8152: true, 2628: true, 8169: true, 13609: true,
}

// numbered is what the go-mssqldb errors (mssql.Error) and the fake
// driver's errors share.
type numbered interface {
	error
	SQLErrorNumber() int32
}

// interpretError is the one place that reads driver errors and turns
// them into the errors the store reports. An error it does not know
// passes unchanged.
//
//   - sql.ErrNoRows: errNotFound (wrapping it)
//   - 1205, 1222, 51000: *transientError, tried again by DB.on
//   - 2601, 2627: errDuplicate (wrapping the driver's error)
//   - a value error (refusedValues): *queuebox.RefusedValueError
func interpretError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %w", errNotFound, err)
	}
	var n numbered
	if !errors.As(err, &n) {
		return err
	}
	switch num := n.SQLErrorNumber(); {
	case num == errDeadlockVictim || num == errLockTimeout || num == errClaimLockDenied:
		return &transientError{err: err}
	case num == errUniqueIndex || num == errUniqueKey:
		return fmt.Errorf("%w: %w", errDuplicate, err)
	case refusedValues[num]:
		return &queuebox.RefusedValueError{Reason: n.Error(), Err: err}
	}
	return err
}

// The errors of a login that no retry changes, with what to check. SQL
// Server tells the client little of a failed login (the reason is in
// its error log): 18456 covers a wrong password, an unknown login and a
// database the login may not open; 4060 names a database that does not
// exist or that the login may not use.
var refusedLogins = map[int32]string{
	errLoginFailed: "check database.username (QUEUEBOX_DATABASE_USERNAME), database.password (QUEUEBOX_DATABASE_PASSWORD) " +
		"and the database name in database.url (QUEUEBOX_DATABASE_URL); the server's error log gives the reason",
	errCannotOpenDatabase: "check the database name in database.url (QUEUEBOX_DATABASE_URL) and that the login may use it",
}

const (
	errLoginFailed        = 18456
	errCannotOpenDatabase = 4060
)

// refusal returns the error of a start that the server refused for good
// (refusedLogins), its reason first and then the database (display, its
// password masked) and what to check; nil for any other error.
func refusal(err error, display string) error {
	var n numbered
	if !errors.As(err, &n) {
		return nil
	}
	hint, ok := refusedLogins[n.SQLErrorNumber()]
	if !ok {
		return nil
	}
	return &refusedError{err: err,
		text: fmt.Sprintf("%s (error %d): database %s refused the connection; %s", n.Error(), n.SQLErrorNumber(), display, hint)}
}

// refusedError is a refusal: its text leads with the server's reason and
// it unwraps to the driver's error.
type refusedError struct {
	text string
	err  error
}

func (e *refusedError) Error() string { return e.text }
func (e *refusedError) Unwrap() error { return e.err }
