package ingest

import (
	"context"
	"time"
)

// Message is one received message, as any transport hands it to
// Receiver.Receive. The transport has already done its own checks (for
// HTTP: the rate limit, the body cap and the credentials).
type Message struct {
	// Body is the received body, unchanged. Receive does not keep it
	// after it returns.
	Body []byte
	// Headers are the received headers, one value per name, under the
	// lower-case name. The header filter reads all of them; the row and
	// $headers get those that Transport.OmitHeaders does not name.
	// Receive does not change the map.
	Headers map[string]string
	// CorrelationID is the correlation identifier the transport found
	// (the X-Correlation-Id header, or a broker's own property), as
	// received. Receive cleans it; empty gets a new UUID.
	CorrelationID string
	// ReceivedAt is the receipt time ($timestamp). Zero uses the clock of
	// Options.Now.
	ReceivedAt time.Time
	// Broker holds what a broker gives a message besides its headers and
	// body. An HTTP source leaves it empty.
	Broker BrokerAttributes
	// LogContext, when not nil, marks the log lines about this message
	// with its values (the trace and span of its receive span) in place
	// of those of the ctx given to ReceiveBatch, which one group of
	// messages shares. Its cancellation is ignored: ctx governs that.
	LogContext context.Context
}

// BrokerAttributes are the attributes that a broker itself gives a
// message. A receiver reads them only in the broker order
// (Transport.BrokerAttributes), where they come after the body paths; see
// 26_Headers.
type BrokerAttributes struct {
	// MessageID is the third place of the idempotency key: the AMQP
	// message_id property, the Kafka record key or the Nats-Msg-Id header.
	MessageID string
	// RecordKey is the third place of the aggregate identifier: the Kafka
	// record key. RabbitMQ and NATS leave it empty.
	RecordKey string
}

// Outcome is what Receive did with a message.
type Outcome int

// The outcomes of Receive. Every one of them is final for the sender: a
// repeat of the message gets the same outcome (Duplicate instead of
// Stored or Dead), except a Rejected decision that is not Permanent.
const (
	// Stored: a new pending row holds the message; Decision.ID is its id.
	Stored Outcome = iota + 1
	// Duplicate: the source already holds the idempotency key; no row was
	// written.
	Duplicate
	// Filtered: the header filter dropped the message; no row was
	// written.
	Filtered
	// Rejected: the message cannot be stored and no row was written; see
	// Decision.Reason, Message and Permanent. Only a receiver without
	// Transport.DeadLetter rejects this way.
	Rejected
	// Dead: the message cannot be processed, and a row in state dead
	// keeps it, with the reason in last_error; Decision.ID is its id.
	// Only a receiver with Transport.DeadLetter decides Dead.
	Dead
)

var outcomeNames = map[Outcome]string{
	Stored: "stored", Duplicate: "duplicate", Filtered: "filtered", Rejected: "rejected", Dead: "dead",
}

// String returns the lower-case name of the outcome, for logs.
func (o Outcome) String() string {
	if name, ok := outcomeNames[o]; ok {
		return name
	}
	return "unknown"
}

// Decision is the answer of Receive.
type Decision struct {
	Outcome Outcome
	// ID is the id of the new row for Stored and Dead, else empty.
	ID string
	// CorrelationID is the cleaned correlation identifier that the row
	// carries (or would have carried). Empty only for Filtered, which
	// runs before it is chosen.
	CorrelationID string
	// Reason is the reason label of queuebox_inbox_rejections_total for
	// Rejected and Dead: ReasonExtractionFailed or ReasonTransformFailed.
	Reason string
	// Message is, for Rejected, the text to show the sender (it names the
	// failed check and holds no credential); for Dead, the last_error of
	// the row, which names the stage that failed.
	Message string
	// Permanent is true for a Rejected message that fails the same way on
	// every try, so a sender must not repeat it. Only a transform that ran
	// past timeoutMs is a rejection that a later try may pass.
	Permanent bool
}

// failure is a message that cannot be stored as it came: a rejection, or
// a dead row in dead-letter mode.
type failure struct {
	reason    string // label of queuebox_inbox_rejections_total
	message   string // text for the sender
	stage     string // the step that failed, first in last_error
	detail    string // what failed, for the log and last_error
	permanent bool
	// raw stores a dead row's body as {"raw": text}, because the body
	// itself cannot be stored as JSON.
	raw bool
	// cut keeps only the first DeadBodyPrefix bytes of the body in the
	// raw payload, for a body past Transport.MaxBodyBytes.
	cut bool
}

// lastError is the last_error of a dead row: the stage, then the detail.
func (f *failure) lastError() string { return f.stage + ": " + f.detail }

func (f *failure) rejected(corr string) Decision {
	return Decision{Outcome: Rejected, CorrelationID: corr, Reason: f.reason, Message: f.message, Permanent: f.permanent}
}
