package queuebox

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Delivery is what a publisher sends for one message: the body after the
// route and destination transforms, and the row itself for its headers
// and address templates.
type Delivery struct {
	Message *OutboxMessage
	Body    []byte
	// RoutingKeyTemplate is the matched route's routing key template, or
	// nil when the route sets none; MissingFieldDefault fills placeholders
	// that find no value.
	RoutingKeyTemplate  *string
	MissingFieldDefault string
	// Receipt, when not nil, takes what the destination answered, for the
	// delivery ledger: a publisher that knows sets its fields before
	// Publish returns and never after, and one that does not leaves them.
	Receipt *Receipt
}

// Receipt is what a destination answered to one publish.
type Receipt struct {
	// Status is the answer's code: an HTTP status as text ("200", "503").
	Status string
	// Answer is the start of the body of a failed publish's answer,
	// redacted by the publisher; empty on success.
	Answer string
}

// Publisher sends deliveries to one destination.
//
// Publish blocks until the destination accepted the message (an HTTP 2xx,
// a broker's confirm or delivery report) or failed; only then may the
// caller mark the row sent. Any error is a failed attempt, which the
// poller retries until the row's max_attempts, except an error that
// matches ErrUndeliverable, which sends the row dead at once. When ctx ends first,
// Publish returns promptly with an error; the message may or may not have
// reached the destination (at least once).
//
// Implementations are safe for concurrent use. Close releases the
// connections; the caller calls it once, after the last Publish has
// returned, and a Publish after Close fails.
type Publisher interface {
	Publish(ctx context.Context, d Delivery) error
	Close() error
}

// ErrUndeliverable matches (errors.Is) every *UndeliverableError.
var ErrUndeliverable = errors.New("the message can never be delivered as it is")

// UndeliverableError is a publish that can never succeed for this row, on
// any attempt: a header value that the protocol cannot carry, a topic or
// key with a control character, a destination address that the
// private-address guard refuses. The poller sends the row dead at once
// instead of retrying it until max_attempts. A publisher returns it only
// for a failure that no retry and no change at the destination can cure.
type UndeliverableError struct {
	// Reason describes the row or the address; it never holds a
	// credential.
	Reason string
	// Err is the underlying error, or nil.
	Err error
}

func (e *UndeliverableError) Error() string { return e.Reason }

// Unwrap returns the underlying error.
func (e *UndeliverableError) Unwrap() error { return e.Err }

// Is reports whether target is ErrUndeliverable.
func (e *UndeliverableError) Is(target error) bool { return target == ErrUndeliverable }

// Undeliverable returns an *UndeliverableError with the reason fmt builds.
func Undeliverable(format string, args ...any) error {
	return &UndeliverableError{Reason: fmt.Sprintf(format, args...)}
}

// PauseRequest is implemented by a publish error with which the
// destination asked not to be sent to for a while: an HTTP 429 or 503
// with Retry-After, a broker that refuses for now (a full stream, a full
// producer queue). The poller then starts no publish to that destination
// before the pause ends. Pause says how long from now, and false when
// the error asks for no pause.
type PauseRequest interface {
	Pause(now time.Time) (time.Duration, bool)
}

// NotSent is implemented by a publish error returned before anything
// reached the destination, because the destination said it cannot take
// messages now (a RabbitMQ connection that the broker blocked). Such an
// error also implements PauseRequest. The poller defers the row for the
// pause, with no attempt spent, and counts nothing for the breaker.
// Unsent reports false when the error is an ordinary failure.
type NotSent interface {
	Unsent() bool
}

// RowRefusal is implemented by a publish error that the destination gave
// on purpose about this one row (an HTTP 4xx other than 408 and 429):
// the destination works, so the failure does not count toward opening
// its circuit breaker. The attempt still fails and retries.
type RowRefusal interface {
	RowRefused() bool
}
