package kafka

import (
	"context"
	"errors"
	"fmt"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"

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
	case queueFull(err):
		cause = failure.ErrRefused
	}
	return failure.New("kafka", p.opts.Name, "produce to", topic, text, cause)
}

func destPrefix(name string) string { return failure.Prefix("kafka", name) }

// queueFull reports a produce refused because the producer's local queue
// is full: the brokers take messages slower than they come (a quota
// throttle among the causes).
func queueFull(err error) bool {
	var kerr ckafka.Error
	return errors.As(err, &kerr) && kerr.Code() == ckafka.ErrQueueFull
}
