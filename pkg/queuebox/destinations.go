package queuebox

import (
	"context"
	"time"
)

// The destinations page and the undelivered view read the outbox and the
// delivery ledger per destination: what waits, what was sent or failed
// lately, and which rows ended dead or keep retrying.

// PendingStat is the pending outbox rows of one topic and destination
// column ("" for rows not routed yet, and on an outbox without lanes).
type PendingStat struct {
	Topic, Destination string
	Rows               int64
	// Oldest is the age of the oldest of them, by the database clock.
	Oldest time.Duration
}

// MinuteCount counts the attempts that the ledger recorded for one
// destination in one minute (Minute is its start, UTC).
type MinuteCount struct {
	Destination string
	Minute      time.Time
	// Sent counts the sent outcomes; Failed the failed and dead ones.
	// Deferrals spend no attempt and count in neither.
	Sent, Failed int64
	// RecentSent and RecentFailed count those of them that started in
	// the recent window of DestinationActivity.
	RecentSent, RecentFailed int64
}

// Activity is what DestinationActivity reads.
type Activity struct {
	Pending []PendingStat
	// Minutes are the minutes of the window that had an attempt, by
	// destination then minute; none when the ledger is off.
	Minutes []MinuteCount
}

// UndeliveredFilter selects the outbox rows of the undelivered view: rows
// that ended dead (not discarded) and rows still retrying (pending or
// processing after a failed attempt), whose last change is at or after
// Since.
type UndeliveredFilter struct {
	Since time.Time
	// Destination selects the rows of this destination column; "" any.
	Destination string
}

// Undelivered is one row of the undelivered view: the row as the list
// shows it, and the last attempt the ledger holds for it.
type Undelivered struct {
	Message Message
	// LastOutcome, Class and Status are those of the row's latest
	// attempt in the ledger; empty when the ledger holds none (ledger off
	// or cleaned), and then Message.LastError is all there is.
	LastOutcome AttemptOutcome
	Class       AttemptClass
	Status      string
	LastAttempt *time.Time
}

// UndeliveredCount counts the rows a filter selects that share one
// destination column and one class ("" for rows without a ledger
// attempt).
type UndeliveredCount struct {
	Destination    string
	Class          AttemptClass
	Dead, Retrying int64
}

// UndeliveredPage is one page of the undelivered view, newest first by
// sequence then id (the outbox list's order and cursor), with the counts
// of the whole selection.
type UndeliveredPage struct {
	Items  []Undelivered
	Next   *Cursor
	Counts []UndeliveredCount
}

// DeliveryReader reads the per-destination views of the workbench. The
// workbench store of every dialect implements it.
type DeliveryReader interface {
	// DestinationActivity reads the pending rows per topic and
	// destination, and the ledger's attempts per destination and minute
	// over the last window, with those of the last recent (a part of
	// window) counted apart: one group-by over the ledger's destination
	// index.
	DestinationActivity(ctx context.Context, window, recent time.Duration) (Activity, error)
	// Undelivered returns up to limit rows f selects after the cursor,
	// and the counts per destination and class of every row it selects.
	Undelivered(ctx context.Context, f UndeliveredFilter, limit int, after Cursor) (UndeliveredPage, error)
}

// DestinationFlow is a snapshot of one destination's flow control in the
// deliver process that holds it.
type DestinationFlow struct {
	Destination string
	// Breaker is closed, half-open or open; OpenUntil is when an open
	// breaker lets its next probe through (nil otherwise).
	Breaker   string
	OpenUntil *time.Time
	// BreakerEnabled says whether the destination has a breaker at all.
	BreakerEnabled bool
	// PausedUntil is the end of a pause a destination asked for
	// (Retry-After), nil when none runs.
	PausedUntil *time.Time
	// Detail is what opened the breaker or caused the pause, redacted.
	Detail string
	// InFlight are the publishes under way; MaxInFlight their bound.
	InFlight, MaxInFlight int
	// Deferred counts the rows deferred since the process started, by
	// reason (in_flight, rate, circuit_open, retry_after).
	Deferred map[string]int64
}

// FlowReader reads the flow control of the deliver process it runs in.
// Implementations are safe for concurrent use.
type FlowReader interface {
	// FlowStates returns one snapshot per destination, sorted by name.
	FlowStates() []DestinationFlow
}
