package kafka

import (
	"context"
	"errors"
	"fmt"

	"github.com/alternayte/queuebox/pkg/broker/failure"
)

// Error is a failed publish (see package failure). Its text never holds
// a known secret: the part that came from librdkafka is redacted.
type Error = failure.Error

// errTimeout marks the publisher's own budget running out.
var errTimeout = errors.New("no delivery report within the timeout")

// fail describes a failed publish. ctx is the caller's context: a
// deadline while it is still live is the publisher's own timeout, which
// the text then states.
func (p *Publisher) fail(ctx context.Context, topic string, err error) *Error {
	text := p.redactor.Redact(err.Error())
	var cause error
	switch {
	case ctx.Err() != nil:
		cause = ctx.Err()
	case errors.Is(err, errTimeout):
		cause = context.DeadlineExceeded
		text += fmt.Sprintf(" (timeout %s)", p.opts.Timeout)
	}
	return failure.New("kafka", p.opts.Name, "produce to", topic, text, cause)
}

func destPrefix(name string) string { return failure.Prefix("kafka", name) }
