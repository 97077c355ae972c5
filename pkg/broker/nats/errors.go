package nats

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/alternayte/queuebox/pkg/broker/failure"
)

// Error is a failed publish (see package failure). Its text never holds
// a known secret: the part that came from the client library is redacted.
type Error = failure.Error

// fail describes a failed publish. ctx is the caller's context: a
// deadline while it is still live is the publisher's own timeout, which
// the text then states.
func (p *Publisher) fail(ctx context.Context, subject string, err error) *Error {
	var cause error
	switch {
	case ctx.Err() != nil:
		cause = ctx.Err()
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, gonats.ErrTimeout):
		cause = context.DeadlineExceeded
	case streamFull(err):
		cause = failure.ErrRefused
	}
	text := p.redactor.Redact(err.Error())
	switch {
	case errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, gonats.ErrNoResponders):
		text += " (no stream holds the subject)"
	case cause == context.DeadlineExceeded && ctx.Err() == nil:
		text += fmt.Sprintf(" (timeout %s)", p.opts.Timeout)
	}
	return failure.New("nats", p.opts.Name, "publish to", subject, text, cause)
}

func destPrefix(name string) string { return failure.Prefix("nats", name) }

// jsStreamStoreFailed is the server's error code of a message that the
// stream could not store; the client library names no constant for it.
const jsStreamStoreFailed jetstream.ErrorCode = 10077

// streamFull reports a JetStream refusal because the stream reached a
// limit with the discard policy new (maximum messages, bytes or messages
// per subject): the stream takes messages again once a consumer or a
// limit frees room.
func streamFull(err error) bool {
	var api *jetstream.APIError
	if !errors.As(err, &api) {
		return false
	}
	return api.ErrorCode == jsStreamStoreFailed || strings.Contains(api.Description, "maximum")
}
