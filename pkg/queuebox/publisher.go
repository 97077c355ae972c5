package queuebox

import "context"

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

// Publisher sends deliveries to one destination.
//
// Publish blocks until the destination accepted the message (an HTTP 2xx,
// a broker's confirm or delivery report) or failed; only then may the
// caller mark the row sent. Any error is a failed attempt, which the
// poller retries until the row's max_attempts. When ctx ends first,
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
