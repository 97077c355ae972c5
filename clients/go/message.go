package queuebox

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// Handler handles one message in tx, the transaction in which the library
// then completes the message. Write every change through tx; do not
// commit or roll back, the library owns both. Return an error to fail the
// message: the library rolls tx back and asks the RetryPolicy. ctx is
// cancelled when the lease is lost and when a shutdown runs out of grace;
// the library then rolls tx back and completes nothing. Work outside tx
// (an HTTP call) can run again for the same message: deduplicate it on
// Message.Source and Message.IdempotencyKey together.
type Handler func(ctx context.Context, message Message, tx *sql.Tx) error

// Message is one claimed inbox row, as the handler sees it. It holds no
// claim token.
type Message struct {
	// ID is the inbox row identifier.
	ID string
	// Source is the source name.
	Source string
	// IdempotencyKey is the deduplication key; the identity of a message
	// is Source and IdempotencyKey together.
	IdempotencyKey string
	// AggregateID is the unit of order, or nil.
	AggregateID *string
	// EventType is nil when the source set none.
	EventType *string
	// Payload is the JSON body.
	Payload json.RawMessage
	// Attempt is 0 on the first delivery and rises by one on each retry.
	Attempt int
	// CorrelationID follows the message through the logs, or nil.
	CorrelationID *string
	// Headers are the stored headers, one value per name; empty, not nil,
	// when there are none.
	Headers map[string]string
}

// UnmarshalPayload parses the payload into target, as json.Unmarshal does.
func (m Message) UnmarshalPayload(target any) error {
	if err := json.Unmarshal(m.Payload, target); err != nil {
		return fmt.Errorf("unmarshal the payload of inbox message %s: %w", m.ID, err)
	}
	return nil
}
