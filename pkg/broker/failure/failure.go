// Package failure is the error every broker publisher (RabbitMQ, NATS,
// Kafka) returns for a failed attempt. Its text is redacted before it is
// built, and the client library's error is not kept, so errors.Unwrap
// cannot reach a text that might hold a password; only the causes a
// caller tests with errors.Is stay reachable.
package failure

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/netguard"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Error is a failed publish.
type Error struct {
	// Destination is the destination name; Address the rendered
	// exchange, subject or topic, empty when none was rendered or the
	// publisher does not name it.
	Destination, Address string

	msg   string
	cause error
}

// New returns the failure of destination kind (rabbitmq, nats, kafka).
// text is the redacted description; when address is set, the text is
// preceded by action and address ("publish to orders.created"). cause is
// what Unwrap returns: context.Canceled, context.DeadlineExceeded, a
// publisher's own sentinel, or nil.
func New(kind, destination, action, address, text string, cause error) *Error {
	var b strings.Builder
	b.WriteString(Prefix(kind, destination))
	if address != "" {
		b.WriteString(": " + action + " " + address)
	}
	b.WriteString(": " + text)
	return &Error{Destination: destination, Address: address, msg: b.String(), cause: cause}
}

// Prefix is how the errors of a destination begin: "kafka destination
// orders", or "kafka destination" without a name.
func Prefix(kind, destination string) string {
	if destination == "" {
		return kind + " destination"
	}
	return kind + " destination " + destination
}

// Error returns the redacted description.
func (e *Error) Error() string { return e.msg }

// Unwrap returns the cause given to New.
func (e *Error) Unwrap() error { return e.cause }

// Blocked returns the *queuebox.UndeliverableError of an attempt whose
// connection the dial guard refused (err wraps a *netguard.BlockedError,
// http.blockPrivateAddresses), or nil for any other err. No attempt can
// reach that address, so the row goes dead at once with a reason that
// names the destination and the address.
func Blocked(kind, destination string, err error) error {
	var blocked *netguard.BlockedError
	if !errors.As(err, &blocked) {
		return nil
	}
	return &queuebox.UndeliverableError{Reason: Prefix(kind, destination) + ": " + blocked.Reason(), Err: blocked}
}

// ErrRefused is the cause of a publish that the broker refused for now:
// a full stream, a full producer queue. Such a failure asks the poller to
// pause the destination for RefusalPause (see Pause).
var ErrRefused = errors.New("the broker refuses messages for now")

// RefusalPause is how long a broker's refusal pauses its destination: a
// broker names no time, so the pause is short and the next publish
// after it finds out whether the broker takes messages again. It is
// fixed rather than taken from the breaker's openMs on purpose: openMs is
// the wait after a destination failed failureThreshold times in a row
// (30 s by default, doubling), far longer than a full stream or producer
// queue usually lasts. A refused publish is also a failed attempt, so a
// broker that keeps refusing opens the breaker after failureThreshold
// refusals, and from then on openMs paces the probes. A blocked
// connection spends no attempt (Unsent) and stays on this pause until
// the broker lifts the block.
const RefusalPause = 5 * time.Second

// ErrBlocked is the cause of a publish that sent nothing because the
// broker told the connection to stop publishing (RabbitMQ's
// connection.blocked, raised by a memory or disk alarm). It is a refusal
// (errors.Is(err, ErrRefused) holds) and the row is deferred, not
// attempted (see Unsent).
var ErrBlocked = fmt.Errorf("the broker blocked the connection: %w", ErrRefused)

// Pause implements queuebox.PauseRequest: a failure caused by ErrRefused
// (ErrBlocked included) asks for RefusalPause.
func (e *Error) Pause(time.Time) (time.Duration, bool) {
	if errors.Is(e.cause, ErrRefused) {
		return RefusalPause, true
	}
	return 0, false
}

// Unsent implements queuebox.NotSent: a failure caused by ErrBlocked sent
// nothing.
func (e *Error) Unsent() bool { return errors.Is(e.cause, ErrBlocked) }
