package queuebox

import (
	"context"
	"time"
)

// The reasons a destination pause is recorded with: the reason labels of
// queuebox_destination_deferred_total that stand for a pause of a known
// end. (in_flight and rate defer a row for about a second and are not
// recorded.)
const (
	PauseCircuitOpen = "circuit_open"
	PauseRetryAfter  = "retry_after"
)

// PauseParams is one deliver replica's pause of one destination.
type PauseParams struct {
	Destination string
	// Replica names the deliver process; each replica has its own flow
	// control, so each records its own pause.
	Replica string
	// Reason is PauseCircuitOpen or PauseRetryAfter.
	Reason string
	// Detail is what caused the pause (the last failure, the Retry-After
	// answer, the broker's refusal), redacted and cut as a last_error is;
	// empty when nothing is known.
	Detail string
	// For is how long the pause lasts from now, by the store's clock (the
	// clock of the rows' scheduled_at).
	For time.Duration
}

// DestinationPause is a recorded pause that has not ended.
type DestinationPause struct {
	Destination, Replica, Reason string
	Detail                       *string
	// Until is when the pause ends; RecordedAt when it was recorded.
	Until, RecordedAt time.Time
}

// PauseRecorder is an extension of an OutboxStore that every dialect
// implements (storetest checks it): a deliver replica records there each
// pause of a destination that lasts a while, so the workbench can say why
// that destination's pending rows wait. It writes once per pause, never
// per row, and into a QueueBox table, never into the outbox.
type PauseRecorder interface {
	// PauseRecord records p, replacing the replica's earlier pause of the
	// destination, and deletes the pauses of any destination and replica
	// that have ended. It is safe to repeat and for concurrent use; when
	// ctx ends, the statement is cancelled.
	PauseRecord(ctx context.Context, p PauseParams) error
}
