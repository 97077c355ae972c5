package queuebox

import (
	"context"
	"time"
)

// The delivery ledger (table outbox_attempts, migration V17) keeps one
// row per outcome that deliver writes for an outbox row: every attempt,
// with what the destination answered, where the row itself keeps only
// the last one (attempt, last_error). The outcome write records it in
// the same statement, only for the rows whose claim fence held, so the
// ledger shows no attempt the outbox does not; with the ledger off the
// write is the statement it was before.

// AttemptOutcome is what one attempt came to, as the ledger names it.
type AttemptOutcome string

// Attempt outcomes: the outcome kinds of the write, in the ledger's words.
const (
	AttemptSent     AttemptOutcome = "sent"
	AttemptFailed   AttemptOutcome = "failed"   // OutcomeRetry: another attempt follows
	AttemptDeferred AttemptOutcome = "deferred" // OutcomeDefer: no attempt spent
	AttemptDead     AttemptOutcome = "dead"
)

// AttemptOutcomeOf is the ledger's word for an outcome kind.
func AttemptOutcomeOf(k OutcomeKind) AttemptOutcome {
	switch k {
	case OutcomeRetry:
		return AttemptFailed
	case OutcomeDefer:
		return AttemptDeferred
	}
	return AttemptOutcome(k)
}

// AttemptClass names why an attempt failed or was deferred. The set is
// fixed, so a count per class stays bounded.
type AttemptClass string

// Failures of a publish.
const (
	ClassTimeout AttemptClass = "timeout"  // no answer within the destination's timeout
	ClassConnect AttemptClass = "connect"  // an HTTP request that got no answer (refused, reset, DNS)
	ClassHTTP3xx AttemptClass = "http_3xx" // a redirect, which QueueBox does not follow
	ClassHTTP4xx AttemptClass = "http_4xx"
	ClassHTTP5xx AttemptClass = "http_5xx"
	// ClassRefused is a broker that refused messages for now (a full
	// stream or producer queue) or blocked the connection.
	ClassRefused AttemptClass = "refused"
	// ClassPublish is any other failed publish to a broker.
	ClassPublish AttemptClass = "publish"
	// ClassUndeliverable is a row that the publisher can never deliver as
	// it is (ErrUndeliverable), or whose headers the store could not read.
	ClassUndeliverable AttemptClass = "undeliverable"
)

// Failures before any publish.
const (
	// ClassNoRoute is a row that no route sends anywhere, or no longer to
	// its destination, or whose destination has no publisher.
	ClassNoRoute AttemptClass = "no_route"
	// ClassTransform is a transform that failed (onError fail or dead).
	ClassTransform AttemptClass = "transform"
)

// Deferrals, no attempt spent: the deferral reasons of flow control, a
// fan-out still to be written.
const (
	ClassInFlight    AttemptClass = "in_flight"
	ClassRate        AttemptClass = "rate"
	ClassCircuitOpen AttemptClass = "circuit_open"
	ClassRetryAfter  AttemptClass = "retry_after"
	ClassFanOut      AttemptClass = "fan_out"
)

// Attempt is one row of the delivery ledger as the workbench reads it.
type Attempt struct {
	// ID orders the rows of the ledger as they were written.
	ID int64
	// OutboxID is the outbox row; MessageID the id its destination
	// received (the origin of a fan-out delivery, else the row's own).
	OutboxID, MessageID string
	Destination         string
	// Number is the row's attempt at the publish (X-Attempt).
	Number    int
	StartedAt time.Time
	Duration  time.Duration
	Outcome   AttemptOutcome
	// Class, Status and Answer are empty when the ledger holds none (see
	// AttemptFacts).
	Class      AttemptClass
	Status     string
	Answer     string
	RecordedAt time.Time
}

// LedgerReader reads the delivery ledger. The workbench store of every
// dialect implements it; a database without the ledger's table answers
// no attempt.
type LedgerReader interface {
	// Attempts returns up to limit attempts of the outbox rows ids, the
	// newest first (by started_at, then by the order they were written).
	Attempts(ctx context.Context, ids []string, limit int) ([]Attempt, error)
}
