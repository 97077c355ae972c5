// Package queuebox holds the domain of QueueBox: the row states, the
// messages that move through the outbox and the inbox, the store and
// publisher contracts that every dialect and every transport implements,
// and the errors that cross package boundaries. It imports only the
// standard library, so every other package can depend on it, and a second
// store or broker needs nothing of the first.
package queuebox

import (
	"errors"
)

// State is the state column of an outbox or inbox row.
type State string

// Row states. An outbox row moves pending → processing → sent | dead (a
// retry goes back to pending); an inbox row moves pending → processing →
// processed | dead, or is stored dead at receipt. sent, processed and
// dead are final: only an operator (a replay) moves a row out of them.
const (
	StatePending    State = "pending"
	StateProcessing State = "processing"
	StateSent       State = "sent"
	StateDead       State = "dead"
	StateProcessed  State = "processed"
)

// Lease identifies one claimed row: its id and the claim token that
// fences every later write of that claim.
type Lease struct {
	ID    string
	Token string
}

// ErrLeaseLost reports a fenced write that changed no row: another worker
// owns the row now, and the caller must drop its work on it.
var ErrLeaseLost = errors.New("claim lost: another worker owns the row")

// ErrRefusedValue matches (errors.Is) every *RefusedValueError.
var ErrRefusedValue = errors.New("the database refused a value of the row")

// RefusedValueError is a write that the database refused for a value of
// the row itself (PostgreSQL: SQLSTATE class 22, data exception): a JSON
// number outside the numeric range, an unpaired surrogate escape, a value
// wider than its column. Unlike a connection or constraint failure, the
// same row fails on every try, so a caller must neither retry it nor ask
// a sender to send it again.
type RefusedValueError struct {
	// Reason is the database's message and detail; it describes the
	// value, never a credential.
	Reason string
	// Err is the driver's error.
	Err error
}

func (e *RefusedValueError) Error() string { return e.Reason }

// Unwrap returns the driver's error.
func (e *RefusedValueError) Unwrap() error { return e.Err }

// Is reports whether target is ErrRefusedValue.
func (e *RefusedValueError) Is(target error) bool { return target == ErrRefusedValue }
