package brokertest

import (
	"strings"
	"testing"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Config is what a case asks of the publisher that a Factory builds.
type Config struct {
	// Timeout is the publisher's own bound on one Publish: the HTTP
	// request timeout, the wait for a broker confirm. The fault cases set
	// it short; the others set it long enough never to fire.
	Timeout time.Duration
}

// Factory builds the destinations of one transport for Exercise. Each
// case calls New (or Unreachable) itself, so every case gets a fresh
// destination, and cases run in parallel.
type Factory struct {
	// New starts a healthy destination that lives until t ends and returns
	// it with a publisher built with cfg and connected to it. A delivery
	// that the suite sends has no routing key template and topics under
	// "brokertest."; New configures the destination so that such a
	// delivery lands where Destination.Received reads (a bound queue, a
	// stream subject, a topic). The suite closes the publisher, once or
	// more; New cleans up the destination with t.Cleanup.
	New func(t *testing.T, cfg Config) (queuebox.Publisher, Destination)
	// Unreachable returns a publisher built with cfg whose destination
	// address refuses connections (a loopback port where nothing
	// listens). A constructor that dials at once and fails returns its
	// error instead; the case then passes. Nil only with
	// Limits.NoUnreachable.
	Unreachable func(t *testing.T, cfg Config) (queuebox.Publisher, error)
	// Limits skips the cases that the transport cannot produce.
	Limits Limits
}

// Limits lists the faults that a transport's test destination cannot
// produce. The zero value runs every case. Each true field skips the cases
// that need it, with a t.Skip that names the field and Why, so a skip is
// always visible in -v output; a limit is never implied by a nil hook.
type Limits struct {
	// NoStall: SetFault(Stall) is not supported. Skips the timeout case and
	// the cases that cancel or close during a publish.
	NoStall bool
	// NoReject: SetFault(Reject) is not supported. Skips the refusal case.
	NoReject bool
	// NoUnreachable: Factory.Unreachable is nil. Skips the connection
	// refused case.
	NoUnreachable bool
	// Why says why the fields above are set. Exercise fails when a field
	// is set and Why is empty.
	Why string
}

// Fault is how a destination answers the publishes that reach it.
type Fault int

const (
	// Healthy accepts every publish: a 2xx answer, a broker confirm. It is
	// the state New returns.
	Healthy Fault = iota
	// Reject refuses every publish with an answer: a non-2xx status, an
	// AMQP nack, a JetStream error ack, a Kafka produce error. A refused
	// message is not stored.
	Reject
	// Stall takes every publish (the connection stays open, the request or
	// frame is read) and never answers, until SetFault changes the fault
	// or the test ends.
	Stall
)

// Destination is the test destination of one case, as the harness sees
// it. The suite calls its methods from the test goroutine only.
type Destination interface {
	// Received returns the messages that the destination accepted (a 2xx
	// answer, a message stored in the queue or stream), in arrival order.
	// It reads what the destination holds at the call and does not wait
	// for more: Publish returned nil only after the destination accepted
	// the message, so it must already be there. A refused publish or one
	// that was never answered is not in it.
	Received(t *testing.T) []Message
	// Arrivals returns how many publishes reached the destination,
	// accepted, refused or still unanswered. Only the cases that stall the
	// destination read it, to act while a publish is in flight.
	Arrivals(t *testing.T) int
	// SetFault sets how the destination answers the publishes that arrive
	// from now on. Leaving Stall ends publishes that are still held
	// without an answer.
	SetFault(t *testing.T, f Fault)
}

// Message is one message as a destination holds it, mapped back to the
// row: the transport's own names for identity, topic and attempt
// (X-Message-Id, message_id, x-message-id; see the headers reference)
// become fields.
type Message struct {
	// ID is the id of the outbox row.
	ID string
	// Topic is the topic of the row.
	Topic string
	// Attempt is the attempt of the row.
	Attempt int
	// Body is the delivered body, byte for byte.
	Body []byte
	// Headers are every header or attribute of the message, names as the
	// transport gave them.
	Headers map[string][]string
}

// Header returns the values of the header name in any letter case, nil
// when the message has none.
func (m Message) Header(name string) []string {
	var out []string
	for k, v := range m.Headers {
		if strings.EqualFold(k, name) {
			out = append(out, v...)
		}
	}
	return out
}
