package rabbitmq

import (
	"math"
	"slices"
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The standard headers of a RabbitMQ delivery (26_Headers).
const (
	HeaderTopic   = "x-topic"
	HeaderAttempt = "x-attempt"
)

// ContentType is the content_type property of every message.
const ContentType = "application/json"

// publishing returns the AMQP message of one delivery: the properties and
// headers of 26_Headers, then the static headers, then the row headers.
func publishing(d queuebox.Delivery, static map[string]string, mode uint8) amqp.Publishing {
	m := d.Message
	return amqp.Publishing{
		ContentType:  ContentType,
		MessageId:    m.MessageID(),
		DeliveryMode: mode,
		Headers:      headerTable(m, static),
		Body:         d.Body,
	}
}

// headerTable builds the headers. A later group replaces a name of an
// earlier group in any letter case, but never x-topic or x-attempt: a
// group header of exactly that name is dropped (an AMQP table has one
// value per name), one in another letter case travels beside it. The row
// headers are those queuebox.RowHeaders lets through: a relayed row (one
// that a webhook sender's headers reached) can neither replace a static
// header nor add one named like a standard header, in any letter case; a
// row the application wrote keeps the documented precedence.
func headerTable(m *queuebox.OutboxMessage, static map[string]string) amqp.Table {
	t := amqp.Table{HeaderTopic: m.Topic, HeaderAttempt: attemptValue(m.Attempt)}
	row := queuebox.RowHeaders(m.Headers, queuebox.Reserved([]string{HeaderTopic, HeaderAttempt}, static))
	for _, group := range []map[string]string{static, row} {
		names := make([]string, 0, len(group))
		for name := range group {
			names = append(names, name)
		}
		// Sorted, so two names that differ in letter case resolve the same
		// way every time.
		slices.Sort(names)
		for _, name := range names {
			if name == HeaderTopic || name == HeaderAttempt {
				continue
			}
			for old := range t {
				if old != HeaderTopic && old != HeaderAttempt && strings.EqualFold(old, name) {
					delete(t, old)
				}
			}
			t[name] = group[name]
		}
	}
	return t
}

// attemptValue is the attempt as an AMQP integer. The client sends a Go
// int as a 32-bit integer and drops the high bits, so the type is chosen
// here.
func attemptValue(n int) any {
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return int32(n)
	}
	return int64(n)
}
