package queuebox

import (
	"context"
	"errors"
	"time"
)

// Table names one of the two tables the workbench reads and moves.
type Table string

// The two tables.
const (
	TableOutbox Table = "outbox"
	TableInbox  Table = "inbox"
)

// States lists the states a row of the table can be in, in life-cycle
// order; nil for an unknown table.
func (t Table) States() []State {
	switch t {
	case TableOutbox:
		return []State{StatePending, StateProcessing, StateSent, StateDead}
	case TableInbox:
		return []State{StatePending, StateProcessing, StateProcessed, StateDead}
	}
	return nil
}

// FinalStates are the states an operator may move a row of the table out
// of: sent and dead outbox rows, dead inbox rows. A processed inbox row
// stays where it is, because its application already applied it.
func (t Table) FinalStates() []State {
	if t == TableInbox {
		return []State{StateDead}
	}
	return []State{StateSent, StateDead}
}

// ErrNotFound reports that no row has the id asked for.
var ErrNotFound = errors.New("no such row")

// ErrWrongState reports a write that the row's state forbids: a resend of
// a row that waits or runs, a discard of a row that is not dead. Nothing
// changed.
var ErrWrongState = errors.New("the row's state does not allow this")

// MessageFilter selects rows of one table for the workbench. Every field
// is optional (zero does not filter) and they combine with AND.
type MessageFilter struct {
	Table Table
	// States are the states to select; nil selects every state.
	States []State
	// Topics are the outbox topics to select: nil any topic, empty none.
	// The caller resolves a glob or a destination into this list (with
	// Topics of the WorkbenchStore), as the replay does.
	Topics []string
	// Source selects inbox rows of this source.
	Source string
	// Key selects outbox rows of this key, inbox rows of this aggregate.
	Key string
	// Destination selects the outbox rows routed to this destination (the
	// destination column): one destination's deliveries, and nothing of a
	// fan-out's other destinations. A move of such a selection also gives
	// each moved row this destination, so that a row that had none (one
	// written before lanes, or dead before it was routed) goes to this
	// destination alone instead of fanning out again.
	Destination string `json:"Destination,omitempty"`
	// UnroutedTopics widens Destination to the rows that have no
	// destination yet and whose topic is one of these: the caller lists
	// the topics its routes send to Destination. Without Destination it
	// selects nothing more and nothing less.
	UnroutedTopics []string `json:"UnroutedTopics,omitempty"`
	// Backfill, beside Destination, selects instead the messages that
	// have no delivery to Destination: rows the application wrote
	// (origin_id NULL), routed to another destination, whose topic is one
	// of UnroutedTopics (the topics the caller's routes send to
	// Destination now), such that neither the row nor a delivery added
	// for it goes to Destination. Moving such a message adds its delivery
	// to Destination: a new pending row like the deliveries of a fan-out
	// (same key, sequence, payload and headers, origin_id the message's
	// id), so a destination added to a route receives the rows routed
	// before it was added. A store whose outbox has no lane columns
	// answers ErrNoLanes.
	Backfill bool `json:"Backfill,omitempty"`
	// AddMissing, beside Destination, makes a replay job add the missing
	// deliveries to Destination once it has moved the selected rows: the
	// job then goes on with the same filter and Backfill set. Outside a
	// job, and on an outbox without lane columns, it selects nothing more.
	AddMissing bool `json:"AddMissing,omitempty"`
	// Message selects the outbox rows of one message: the row with this id
	// and the deliveries QueueBox added for it (origin_id is this id).
	Message string `json:"Message,omitempty"`
	// Error selects rows whose last_error holds this text, in any case.
	Error string
	// IDs selects these rows only: nil any row, empty none.
	IDs []string
	// CreatedAfter and CreatedBefore bound created_at, both exclusive.
	CreatedAfter, CreatedBefore *time.Time
	// WithDiscarded also selects the dead rows an operator discarded,
	// which every selection otherwise hides.
	WithDiscarded bool
}

// Cursor is the position after the last row of a page, newest first:
// outbox rows by sequence then id (the deliveries of a fan-out share
// their origin's sequence), inbox rows by created_at then id. An outbox
// cursor without an id (one made before the deliveries existed) starts
// after every row of its sequence. The zero Cursor is the start.
type Cursor struct {
	Sequence  int64     `json:"s,omitempty"`
	CreatedAt time.Time `json:"t,omitzero"`
	ID        string    `json:"i,omitempty"`
}

// IsZero reports whether c is the start.
func (c Cursor) IsZero() bool { return c == Cursor{} }

// Message is one row of either table as the workbench shows it. Fields
// of the other table stay zero. List leaves Payload and Headers empty;
// Get fills them.
type Message struct {
	Table       Table
	ID          string
	State       State
	Attempt     int
	LastError   *string
	CreatedAt   time.Time
	ScheduledAt time.Time
	DiscardedAt *time.Time
	ClaimedAt   *time.Time
	ClaimToken  *string
	LeaseExpiry *time.Time
	Payload     []byte // JSON text
	Headers     []byte // JSON object text

	// Outbox columns.
	Topic         string
	Key           *string
	AggregateType *string
	MaxAttempts   int
	UpdatedAt     time.Time
	Sequence      int64
	// Destination is the destination the row was routed to, "" while it
	// has none (the caller may ask the routes).
	Destination string
	// OriginID is the id of the row the application wrote when this row is
	// a delivery QueueBox added for a fan-out; nil otherwise.
	OriginID *string
	// SentAt is updated_at of a sent row: the table has no column of its
	// own for it, and a sent row changes no more.
	SentAt *time.Time

	// Inbox columns.
	Source         string
	IdempotencyKey string
	AggregateID    *string
	EventType      *string
	Consumption    string
	CorrelationID  *string
	ProcessedAt    *time.Time
}

// MessageID is the id of the message an outbox row delivers: its origin's
// id for a delivery of a fan-out, its own id otherwise. Every delivery of
// one message shares it, and it is the id the destinations receive.
func (m Message) MessageID() string {
	if m.OriginID != nil && *m.OriginID != "" {
		return *m.OriginID
	}
	return m.ID
}

// MessagePage is one page of List: the rows, newest first, and the
// cursor of the next page, nil on the last page.
type MessagePage struct {
	Items []Message
	Next  *Cursor
}

// ResendEdit corrects an outbox row as it goes back to pending; a nil
// field keeps the stored value.
type ResendEdit struct {
	Payload []byte // JSON text
	Headers []byte // JSON object text
}

// ResendResult is what a resend changed: the stored payload text before
// and after, so the caller can log their digests.
type ResendResult struct {
	OldPayload, NewPayload []byte
}

// Overview counts the rows of both tables for the workbench's first page.
type Overview struct {
	// Outbox and Inbox count the rows per state; discarded dead rows are
	// counted under Discarded, not under dead.
	Outbox, Inbox map[State]int64
	// OutboxDiscarded and InboxDiscarded count the discarded dead rows.
	OutboxDiscarded, InboxDiscarded int64
	// OldestPendingByTopic is the age of the oldest pending outbox row of
	// each topic; the caller maps topics to destinations.
	OldestPendingByTopic map[string]time.Duration
	// OldestPendingBySource is the age of the oldest pending inbox row of
	// each source.
	OldestPendingBySource map[string]time.Duration
	// DeadByTopic and DeadBySource count the dead rows not discarded.
	DeadByTopic, DeadBySource map[string]int64
	// Topics are the senders' choice, so each per-topic and per-source map
	// above holds at most OverviewTop names (the most dead rows, the
	// oldest pending row); the rest are summed in the matching Other.
	OldestPendingByTopicOther, OldestPendingBySourceOther OverviewOther
	DeadByTopicOther, DeadBySourceOther                   OverviewOther
}

// OverviewTop is the most names a per-topic or per-source map of an
// Overview holds; the store chooses them, and sums the rest, in SQL.
const OverviewTop = 50

// OverviewOther sums the names an Overview map leaves out; it is zero when
// the map holds every name.
type OverviewOther struct {
	// Names is how many topics or sources were left out; Rows is how many
	// rows they hold (dead, or pending).
	Names, Rows int64
	// OldestPending is the age of the oldest pending row among them; zero
	// for the dead maps.
	OldestPending time.Duration
}

// ReplayJob is a replay that runs in the background in batches, with its
// progress in the database so it survives its process.
type ReplayJob struct {
	ID string
	// Filter is the selection; its States are final states only.
	Filter MessageFilter
	// Matched is the count of rows the filter selected at creation.
	Matched, Moved int64
	Done           bool
	Error          *string
	CreatedAt      time.Time
	FinishedAt     *time.Time
}

// JobLease is a runner's hold on one replay job: every step checks it.
type JobLease struct {
	JobID, Token string
}

// WorkbenchStore is the store of the operator's workbench: it lists and
// shows rows of both tables, moves one row back to pending (resend),
// marks a dead row discarded, counts rows for the overview and runs
// replays as jobs. Implementations are safe for concurrent use; the store
// set that built one closes it.
//
// Every move is one statement that checks the row's state in its own
// WHERE clause, so a row that a replica holds (processing) never moves,
// and of several concurrent movers of one row exactly one moves it.
type WorkbenchStore interface {
	// List returns up to limit rows f selects, newest first, after the
	// cursor (zero: from the newest). Pages are keyset pages: a row
	// inserted while a caller pages never shows twice nor hides another.
	List(ctx context.Context, f MessageFilter, limit int, after Cursor) (MessagePage, error)
	// Get reads one whole row, or returns ErrNotFound.
	Get(ctx context.Context, table Table, id string) (Message, error)
	// Topics lists the distinct outbox topics of the rows f selects,
	// ignoring f.Topics: the candidates a glob or a destination narrows.
	Topics(ctx context.Context, f MessageFilter) ([]string, error)
	// Resend moves one row in a final state of its table back to pending,
	// due now, with attempt 0 and its error and claim cleared, applying
	// edit to an outbox row (an inbox row takes no edit). It returns
	// ErrNotFound or ErrWrongState and then changes nothing.
	Resend(ctx context.Context, table Table, id string, edit ResendEdit) (ResendResult, error)
	// Discard marks one dead row discarded. It returns ErrNotFound, or
	// ErrWrongState for a row that is not dead or already discarded.
	Discard(ctx context.Context, table Table, id string) error
	// Overview counts the rows of both tables.
	Overview(ctx context.Context) (Overview, error)
	// Count says how many rows f selects, counting at most limit (0: no
	// bound).
	Count(ctx context.Context, f MessageFilter, limit int) (int64, error)
	// Move moves up to limit rows f selects, in final states only, to
	// pending in one statement and says how many moved. With f.Backfill
	// it adds the missing delivery of up to limit selected messages
	// instead and says how many it added; two such moves of one
	// destination, concurrent or not, never add two deliveries of one
	// message to it.
	Move(ctx context.Context, f MessageFilter, limit int) (int64, error)
	// JobCreate records a replay job of f with its matched count.
	JobCreate(ctx context.Context, f MessageFilter, matched int64) (ReplayJob, error)
	// JobClaim takes the oldest unfinished job whose lease is free or
	// expired under a new token for lease; ok is false when none waits.
	JobClaim(ctx context.Context, lease time.Duration) (l JobLease, ok bool, err error)
	// JobStep moves the next batch of at most batch rows of the job, in
	// the job's own order, and records its progress and a renewed lease
	// in the same transaction, so a batch is never moved twice. It
	// returns ErrLeaseLost when the lease is no longer the caller's, and
	// marks the job done when no row is left.
	JobStep(ctx context.Context, l JobLease, batch int, lease time.Duration) (ReplayJob, error)
	// JobFail ends the job with an error, under the lease.
	JobFail(ctx context.Context, l JobLease, reason string) error
	// JobGet reads one job, or returns ErrNotFound.
	JobGet(ctx context.Context, id string) (ReplayJob, error)
	// JobList returns the newest limit jobs, newest first.
	JobList(ctx context.Context, limit int) ([]ReplayJob, error)
	// Pauses lists the destination pauses that deliver replicas recorded
	// (PauseRecorder) and that have not ended by the store's clock, by
	// destination, then latest end first.
	Pauses(ctx context.Context) ([]DestinationPause, error)
	// LedgerReader reads the attempts of rows from the delivery ledger.
	LedgerReader
	// DeliveryReader reads the destinations page and the undelivered
	// view.
	DeliveryReader
}
