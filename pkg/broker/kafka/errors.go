package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Error is a failed publish. Its text never holds a known secret: the
// part that came from librdkafka is redacted.
type Error struct {
	// Destination is the destination name; Topic the rendered Kafka
	// topic, empty when none could be rendered.
	Destination, Topic string

	msg string
	// cause is context.Canceled or context.DeadlineExceeded, or nil. The
	// library error itself is not kept, so that errors.Unwrap cannot reach
	// an unredacted text.
	cause error
}

// Error returns the redacted description.
func (e *Error) Error() string { return e.msg }

// Unwrap returns context.Canceled or context.DeadlineExceeded when the
// attempt ended that way, so errors.Is works on them, and nil otherwise.
func (e *Error) Unwrap() error { return e.cause }

// errTimeout marks the publisher's own budget running out.
var errTimeout = errors.New("no delivery report within the timeout")

// fail describes a failed publish. ctx is the caller's context: a
// deadline while it is still live is the publisher's own timeout, which
// the text then states.
func (p *Publisher) fail(ctx context.Context, topic string, err error) *Error {
	e := &Error{Destination: p.opts.Name, Topic: topic}
	text := p.redactor.Redact(err.Error())
	switch {
	case ctx.Err() != nil:
		e.cause = ctx.Err()
	case errors.Is(err, errTimeout):
		e.cause = context.DeadlineExceeded
		text += fmt.Sprintf(" (timeout %s)", p.opts.Timeout)
	}
	var b strings.Builder
	b.WriteString(destPrefix(p.opts.Name))
	if topic != "" {
		fmt.Fprintf(&b, ": produce to %s", topic)
	}
	b.WriteString(": " + text)
	e.msg = b.String()
	return e
}

func destPrefix(name string) string {
	if name == "" {
		return "kafka destination"
	}
	return "kafka destination " + name
}
