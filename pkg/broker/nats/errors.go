package nats

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Error is a failed publish. Its text never holds a known secret: the
// part that came from the client library is redacted.
type Error struct {
	// Destination is the destination name; Subject the rendered subject,
	// empty when none could be rendered.
	Destination, Subject string

	msg string
	// cause is context.Canceled or context.DeadlineExceeded, or nil. The
	// library error itself is not kept: its text could hold a server URL
	// with a password that a caller could print through errors.Unwrap.
	cause error
}

// Error returns the redacted description.
func (e *Error) Error() string { return e.msg }

// Unwrap returns context.Canceled or context.DeadlineExceeded when the
// attempt ended that way, so errors.Is works on them, and nil otherwise.
func (e *Error) Unwrap() error { return e.cause }

// fail describes a failed publish. ctx is the caller's context: a
// deadline while it is still live is the publisher's own timeout, which
// the text then states.
func (p *Publisher) fail(ctx context.Context, subject string, err error) *Error {
	e := &Error{Destination: p.opts.Name, Subject: subject}
	switch {
	case ctx.Err() != nil:
		e.cause = ctx.Err()
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, gonats.ErrTimeout):
		e.cause = context.DeadlineExceeded
	}
	text := p.redactor.Redact(err.Error())
	switch {
	case errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, gonats.ErrNoResponders):
		text += " (no stream holds the subject)"
	case e.cause == context.DeadlineExceeded && ctx.Err() == nil:
		text += fmt.Sprintf(" (timeout %s)", p.opts.Timeout)
	}
	var b strings.Builder
	b.WriteString(destPrefix(p.opts.Name))
	if subject != "" {
		fmt.Fprintf(&b, ": publish to %s", subject)
	}
	b.WriteString(": " + text)
	e.msg = b.String()
	return e
}

func destPrefix(name string) string {
	if name == "" {
		return "nats destination"
	}
	return "nats destination " + name
}
