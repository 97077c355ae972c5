package queuebox

import (
	"context"
	"errors"
	"time"
)

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
	// Destination is the destination the row was routed to, the second
	// half of its lane; empty until it is routed (a row without a key is
	// routed at its claim and keeps the name with its outcome).
	Destination string
	// OriginID is the id of the row the application wrote when this row
	// is one delivery of a fan-out that QueueBox added; empty otherwise.
	OriginID string
}

// MessageID is the id a destination receives (X-Message-Id, a broker's
// message id): the id of the row the application wrote, the same for
// every delivery of a fan-out and across retries.
func (m *OutboxMessage) MessageID() string {
	if m.OriginID != "" {
		return m.OriginID
	}
	return m.ID
}

// ClaimedMessage is an outbox row as a claim returns it.
type ClaimedMessage struct {
	*OutboxMessage
	// HeadersErr is set when the headers column does not hold a JSON
	// object. The row is still returned, so that the poller can dead-letter
	// it alone instead of failing the whole claim and stalling every row
	// claimed with it.
	HeadersErr error
}

// Lease returns the row's id and claim token.
func (m ClaimedMessage) Lease() Lease { return Lease{ID: m.ID, Token: m.ClaimToken} }

// OutcomeKind is what a finished claim writes.
type OutcomeKind string

// Outcome kinds. A retry returns the row to pending after its delay with
// attempt + 1; a deferral returns it to pending after its delay with
// attempt and last_error unchanged (its destination could not take it, so
// no attempt was made); sent and dead are final.
const (
	OutcomeSent  OutcomeKind = "sent"
	OutcomeRetry OutcomeKind = "retry"
	OutcomeDefer OutcomeKind = "defer"
	OutcomeDead  OutcomeKind = "dead"
)

// Outcome is the result of one claimed outbox row.
type Outcome struct {
	Lease Lease
	Kind  OutcomeKind
	// Delay is the wait before a retry becomes due.
	Delay time.Duration
	// Error is the redacted, truncated reason stored in last_error.
	Error string
	// Destination is the destination the row went to. The write records
	// it on a row that had none (a row without a key, routed at its
	// claim); a row routed before keeps its own.
	Destination string
	// Attempt holds what the delivery ledger records of this attempt
	// (see Attempt); a store without the ledger ignores it.
	Attempt AttemptFacts
}

// AttemptFacts are what the publish step knows of one attempt, carried
// on its Outcome to the write that records it in the delivery ledger.
// The store adds what the row knows: its message id and destination.
type AttemptFacts struct {
	// Number is the row's attempt at the claim: the X-Attempt header the
	// destination received, 0 on the first delivery.
	Number int
	// StartedAt is when the publish started, or, for a row that no
	// publish sent (dead without a route, deferred by the gate), when its
	// handling started. Zero lets the store take its own clock.
	StartedAt time.Time
	// Duration is how long the publish took, or the handling without one.
	Duration time.Duration
	// Status is the destination's answer code: an HTTP status as text
	// ("200", "503"); empty when it gave none.
	Status string
	// Answer is the start of what the destination answered to a failed
	// publish (its body), else the failure's text: at most
	// MaxAnswerBytes, redacted and stripped of control characters as
	// last_error is. Empty for a sent row.
	Answer string
	// Class names the failure or the deferral, one of the AttemptClass
	// values; empty for a sent row.
	Class AttemptClass
}

// MaxAnswerBytes bounds AttemptFacts.Answer: the first KiB of an answer
// tells what went wrong, and a ledger row stays small.
const MaxAnswerBytes = 1024

// Sent is the outcome of a row the destination accepted.
func Sent() Outcome { return Outcome{Kind: OutcomeSent} }

// Retry is the outcome of a failed attempt that another attempt follows
// after delay.
func Retry(delay time.Duration, reason string) Outcome {
	return Outcome{Kind: OutcomeRetry, Delay: delay, Error: reason}
}

// Defer is the outcome of a row whose destination cannot take it now: it
// is due again after delay, with no attempt spent. The row keeps its
// place as the head of its lane, so no later row of the lane passes it.
func Defer(delay time.Duration) Outcome { return Outcome{Kind: OutcomeDefer, Delay: delay} }

// Dead is the outcome of a row that no attempt can deliver.
func Dead(reason string) Outcome { return Outcome{Kind: OutcomeDead, Error: reason} }

// PendingStats is a snapshot of the pending outbox rows.
type PendingStats struct {
	// ByTopic counts the pending rows of each topic, deliveries included.
	ByTopic map[string]int64
	// ByDestination counts the pending rows routed to each destination
	// (the destination column), and Unrouted the pending rows of each
	// topic that have no destination yet (every row of an outbox without
	// the lane columns). A store that fills neither leaves ByTopic to
	// stand for rows without a destination.
	ByDestination, Unrouted map[string]int64
	// OldestAge is the age of the oldest pending row by the database
	// clock; zero when no row is pending.
	OldestAge time.Duration
}

// Add counts n pending rows of topic with destination dest ("" not
// routed yet) into the maps, which it makes when nil.
func (s *PendingStats) Add(topic, dest string, n int64) {
	if s.ByTopic == nil {
		s.ByTopic = map[string]int64{}
	}
	s.ByTopic[topic] += n
	if dest == "" {
		if s.Unrouted == nil {
			s.Unrouted = map[string]int64{}
		}
		s.Unrouted[topic] += n
		return
	}
	if s.ByDestination == nil {
		s.ByDestination = map[string]int64{}
	}
	s.ByDestination[dest] += n
}

// UnroutedRow is a pending keyed row that has no destination yet: its
// lane is not known, so it holds back the later rows of its key until it
// is routed.
type UnroutedRow struct {
	ID    string
	Topic string
}

// Assignment routes one row: the row takes the first of Destinations, and
// a delivery of the row (a new row with the row's key, sequence, payload
// and headers, its id as origin_id, pending) is added for each other one.
// An assignment with no destination and a DeadReason marks a pending row
// dead instead (no route matches its topic), which releases its key.
type Assignment struct {
	ID string
	// Token is the claim token of a claimed row (one without a key, routed
	// at its claim); empty for a pending keyed row, routed before any
	// claim.
	Token        string
	Destinations []string
	// DeadReason is the last_error of a row that no route can take.
	DeadReason string
}

// ErrNoLanes is the error of Assign on an outbox without the lane
// columns (a custom table made before them): it cannot route a row, nor
// add the deliveries of a fan-out.
var ErrNoLanes = errors.New("the outbox table has no lane columns (destination, origin_id)")

// LaneStore is an extension of an OutboxStore that says whether its table
// has the lane columns. A store without them orders by key alone: its
// claim takes the head of each key whatever the destination, its
// Unrouted finds nothing and its Assign fails with ErrNoLanes. A store
// that does not implement it has lanes.
type LaneStore interface {
	Lanes() bool
}

// HasLanes says whether store orders by lane (see LaneStore).
func HasLanes(store OutboxStore) bool {
	ls, ok := store.(LaneStore)
	return !ok || ls.Lanes()
}

// OutboxStore is the outbox side of a store: the claim protocol of the
// poller. Implementations are safe for concurrent use; the store set that
// built one closes it.
//
// Every write after Claim is fenced: it changes a row only while the row
// is processing under the lease's token and the lease has not expired,
// and it returns the ids it changed. An id missing from the answer lost
// its claim (the caller reports queuebox.ErrLeaseLost for it); an error
// means the statement's fate is unknown.
type OutboxStore interface {
	// Claim takes up to limit due rows and moves them to processing under
	// a new token and lease: rows without a key, and the head of each lane
	// of keyed rows (a lane is a key and a destination; its head is its
	// pending or processing row with the lowest sequence), never a keyed
	// row with no destination yet nor one behind an unrouted row of its
	// key.
	Claim(ctx context.Context, limit int) ([]ClaimedMessage, error)
	// Unrouted lists up to limit pending keyed rows without a destination,
	// lowest sequence first.
	Unrouted(ctx context.Context, limit int) ([]UnroutedRow, error)
	// Assign routes rows in one statement and returns the ids it routed:
	// only a row that has no destination yet is routed (so a second
	// Assign of the same row changes nothing and adds no delivery), a
	// pending one when the assignment has no token, a processing one under
	// a live lease of that token otherwise. An id missing from the answer
	// was routed before, or lost its claim.
	Assign(ctx context.Context, assignments []Assignment) (map[string]bool, error)
	// Renew extends the leases that are still held and returns their ids.
	Renew(ctx context.Context, leases []Lease) (map[string]bool, error)
	// Reclaim returns processing rows whose lease expired to pending
	// and says how many it returned.
	Reclaim(ctx context.Context) (int64, error)
	// Finish writes many outcomes in one fenced statement, each of the
	// kinds above (a deferral included).
	Finish(ctx context.Context, outcomes []Outcome) (map[string]bool, error)
	// FinishAgain is Finish for a later try of the same outcomes after a
	// try that failed: an earlier try may have committed before its answer
	// was lost, so a row that already shows its outcome under its claim
	// token counts as written, not as a lost claim.
	FinishAgain(ctx context.Context, outcomes []Outcome) (map[string]bool, error)
	// Pending reads the pending rows per topic and the oldest one's age.
	Pending(ctx context.Context) (PendingStats, error)
}

// NextDuer is an optional extension of a claim source (OutboxStore
// among them): a store that can say cheaply when its next waiting row
// falls due implements it, and the claim loop then wakes at that moment
// instead of at its next poll tick. A store that cannot (a second
// dialect, a wrapper) leaves it out and its loop keeps the poll interval.
type NextDuer interface {
	// NextDue says how long until the earliest pending row that the
	// claim before it could not have seen falls due: a row scheduled
	// later than since ago (a retry waiting out its backoff), or ok is
	// false when no row waits. since is how long ago that claim started,
	// on the caller's monotonic clock; a row that fell due during it (a
	// claim or this question slowed down by a busy machine) comes back
	// with a delay of zero or less, and a row due before it does not come
	// back (the claim saw it; its key may simply be held). The delay is
	// measured on the store's own clock, the one its claims compare
	// scheduled times with, so a skewed application host does not move
	// it.
	NextDue(ctx context.Context, since time.Duration) (delay time.Duration, ok bool, err error)
}

// PostponeParams says which pending rows a paused destination's
// postponement moves.
type PostponeParams struct {
	// Destination is the paused destination: its routed rows move.
	Destination string
	// Topics are the topics routed to Destination (the store finds the
	// rows through the topic index); only rows of these topics move.
	Topics []string
	// UnroutedTopics are the topics whose route sends a row to Destination
	// alone: rows of them with no destination yet move too. A topic that
	// fans out is left out, so that its other destinations are not held.
	UnroutedTopics []string
	// Delay is how long from now (by the store's clock) the pause lasts.
	Delay time.Duration
}

// Postponer is an extension of an OutboxStore that every dialect
// implements (storetest checks it): the deliver side calls it when a
// destination pauses for a while (an open circuit breaker, a Retry-After),
// so the rows of that destination stop coming back in every claim.
type Postponer interface {
	// Postpone moves every pending row that p selects and that falls due
	// before p.Delay from now to exactly p.Delay from now, in one
	// statement, and says how many it moved. It changes nothing else: not
	// the state, attempt, last_error or updated_at, and never a row that a
	// claim holds (processing). The order of a lane is unchanged, because
	// the claim orders a lane's rows by sequence, not by scheduled_at. It
	// is safe to repeat; when ctx ends, the statement is cancelled and
	// moves nothing.
	Postpone(ctx context.Context, p PostponeParams) (int64, error)
}

// ReplayFilter selects final outbox rows; a nil field does not filter.
type ReplayFilter struct {
	IDs           []string
	Topics        []string // nil: any topic; empty: none
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
}

// Replayer moves final (sent and dead) outbox rows back to pending for the
// admin replay route. Implementations are safe for concurrent use.
type Replayer interface {
	// Topics lists the distinct topics of the final rows f selects.
	Topics(ctx context.Context, f ReplayFilter) ([]string, error)
	// Move moves at most limit of the rows f selects (0: all of them) to
	// pending in one statement and says how many moved. A moved row is
	// pending, so a following call moves the next ones.
	Move(ctx context.Context, f ReplayFilter, limit int) (int64, error)
	// Count says how many rows f selects, counting at most limit (0: no
	// bound).
	Count(ctx context.Context, f ReplayFilter, limit int) (int64, error)
}
