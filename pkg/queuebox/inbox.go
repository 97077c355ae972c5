package queuebox

import (
	"context"
	"errors"
	"time"
)

// Consumption modes of an inbox source.
const (
	ConsumptionPush = "push"
	ConsumptionPull = "pull"
)

// ReceivedRow is a received message as a source stores it.
type ReceivedRow struct {
	// ID is the row id, a UUID. Empty lets the database generate one; a
	// source that binds $messageId before the store sets it.
	ID             string
	Source         string
	IdempotencyKey string
	// AggregateID and EventType are nil when the source found no value.
	AggregateID *string
	EventType   *string
	// Payload is the JSON document to store.
	Payload []byte
	// Headers become a JSON object; nil stores {}.
	Headers       map[string]string
	CorrelationID string
	// Consumption is ConsumptionPush or ConsumptionPull; empty stores push.
	Consumption string
	// State is StatePending or StateDead; empty stores pending.
	State     State
	LastError *string
}

// InboxStore is the receipt side of the inbox. Implementations are safe
// for concurrent use.
type InboxStore interface {
	// Insert stores row unless the source already holds its idempotency
	// key. It returns the id of the new row and inserted=true, or
	// inserted=false with an empty id for a duplicate. The unique
	// constraint on (source, idempotency_key) alone decides, so two
	// concurrent inserts of one key store exactly one row. A value the
	// database refuses fails with a *RefusedValueError.
	Insert(ctx context.Context, row ReceivedRow) (id string, inserted bool, err error)
}

// InsertResult is what InsertBatch tells one row: ID and Inserted as
// Insert returns them, or Err, a *RefusedValueError, when the database
// refuses a value of this row alone.
type InsertResult struct {
	ID       string
	Inserted bool
	Err      error
}

// InboxBatchStore is an InboxStore that also stores many rows in one
// statement and one commit. Implementations are safe for concurrent use.
type InboxBatchStore interface {
	InboxStore
	// InsertBatch stores rows as Insert stores each, in one commit, and
	// returns one result per row in the order of rows. The rows enter the
	// inbox in that order: of two rows of one (source, idempotency key)
	// the first is stored and the second is a duplicate, and the relay's
	// (created_at, id) order follows the batch when the ids are time
	// ordered (UUID version 7, as ingest makes them). A row without an
	// ID gets one before the statement. A value the database refuses
	// fails only its own row (InsertResult.Err); its neighbours are then
	// stored one by one. A non-nil error fails the whole batch: nothing
	// is decided, and rows that did commit are found as duplicates by a
	// repeat. Cancelling ctx cancels the statement, whose fate is then
	// unknown.
	InsertBatch(ctx context.Context, rows []ReceivedRow) ([]InsertResult, error)
}

// InboxRow is a push row the relay claimed.
type InboxRow struct {
	ID             string
	Source         string
	IdempotencyKey string
	AggregateID    *string
	EventType      *string
	Headers        string // JSON object text
	CorrelationID  *string
	CreatedAt      time.Time
	ClaimToken     string
}

// Lease returns the row's id and claim token.
func (r InboxRow) Lease() Lease { return Lease{ID: r.ID, Token: r.ClaimToken} }

// Forward is one claimed inbox row ready to go into the outbox.
type Forward struct {
	Lease   Lease
	Topic   string
	Headers []byte // the outbox headers as a JSON object
}

// ForwardParams are the rows of one forward statement.
type ForwardParams struct {
	Rows []Forward
	// MaxAttempts is the max_attempts of every new outbox row.
	MaxAttempts int
}

// DeadMark is one claimed inbox row to mark dead, with the reason stored
// in last_error.
type DeadMark struct {
	Lease  Lease
	Reason string
}

// RelayParams configure a RelayStore.
type RelayParams struct {
	// Lease is inbox.relay.claimTimeoutMs.
	Lease time.Duration
	// Sources are the configured source names: the claim leaves the rows
	// of any other source pending.
	Sources []string
	// MaxAttempts is inbox.relay.maxAttempts: the reclaim step counts each
	// expired relay claim of a row as an attempt and marks the row dead at
	// this many, so a row that no relay can ever finish stops holding back
	// its aggregate. Zero never marks a row dead.
	MaxAttempts int
}

// RelayStore is the relay side of the inbox: the serialized claim of push
// rows and the fenced forward into the outbox. Implementations are safe
// for concurrent use. The fence is OutboxStore's: each write returns the
// ids it changed, and a missing id lost its claim.
type RelayStore interface {
	// Claim takes up to limit pending push rows of the configured sources:
	// at most one row per aggregate (across every source) in flight across
	// every relay, and the rows of one aggregate in created_at order.
	Claim(ctx context.Context, limit int) ([]InboxRow, error)
	// Renew extends the leases still held and returns their ids.
	Renew(ctx context.Context, leases []Lease) (map[string]bool, error)
	// Reclaim returns processing push rows whose lease expired to
	// pending, counting an attempt, or marks them dead once that attempt
	// reaches RelayParams.MaxAttempts.
	Reclaim(ctx context.Context) (int64, error)
	// Forward marks the rows processed and inserts their outbox rows in
	// one statement; a row whose fence failed gets no outbox row.
	Forward(ctx context.Context, p ForwardParams) (map[string]bool, error)
	// Dead marks claimed rows dead, fenced.
	Dead(ctx context.Context, marks []DeadMark) (map[string]bool, error)
	// OldestPendingAge is the age of the oldest pending row (push and
	// pull) by the database clock, or zero when none is pending.
	OldestPendingAge(ctx context.Context) (time.Duration, error)
}

// InsertEach stores rows through s.Insert one after another, in order,
// with the answers of InsertBatch: a refused row gets its error in
// InsertResult.Err and the next rows go on; any other error stops and
// fails the whole call. Stores use it after a batch statement met a
// refused value, and for a store without InsertBatch.
func InsertEach(ctx context.Context, s InboxStore, rows []ReceivedRow) ([]InsertResult, error) {
	out := make([]InsertResult, len(rows))
	for i, row := range rows {
		id, inserted, err := s.Insert(ctx, row)
		var refused *RefusedValueError
		switch {
		case errors.As(err, &refused):
			out[i].Err = err
		case err != nil:
			return nil, err
		default:
			out[i] = InsertResult{ID: id, Inserted: inserted}
		}
	}
	return out, nil
}
