// Package queuebox holds the domain of QueueBox: the row states, the
// messages that move through the outbox and the inbox, the publisher
// contract and the errors that cross package boundaries. It imports only
// the standard library, so every other package can depend on it.
package queuebox

import (
	"context"
	"errors"
	"time"
)

// Outbox states. sent and dead are final; only an operator moves a row
// out of them.
const (
	StatePending    = "pending"
	StateProcessing = "processing"
	StateSent       = "sent"
	StateDead       = "dead"
	// StateProcessed is the final inbox state of a forwarded or completed row.
	StateProcessed = "processed"
)

// ErrLeaseLost reports a fenced write that changed no row: another worker
// owns the row now, and the caller must drop its work on it.
var ErrLeaseLost = errors.New("claim lost: another worker owns the row")

// OutboxMessage is one claimed outbox row.
type OutboxMessage struct {
	ID            string
	Topic         string
	Key           string // empty when the row has no key
	HasKey        bool   // the key column is not null
	AggregateType string
	Payload       []byte // JSON text
	Headers       map[string]string
	Attempt       int
	MaxAttempts   int
	CreatedAt     time.Time
	Sequence      int64
	// ClaimToken fences every later write of this claim.
	ClaimToken string
}

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
}

// Publisher sends deliveries to one destination. Publish blocks until the
// destination accepted the message (a 2xx, a broker confirm) or failed;
// any error is a failed attempt that the poller retries until the row's
// max_attempts. Implementations are safe for concurrent use. Close
// releases connections; the caller calls it once, after the last Publish.
type Publisher interface {
	Publish(ctx context.Context, d Delivery) error
	Close() error
}
