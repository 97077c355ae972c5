package queuebox

import (
	"context"
	"time"
)

// RetentionStore deletes final rows in bounded batches. Implementations
// are safe for concurrent use.
type RetentionStore interface {
	// OutboxByAge deletes up to batch sent or dead rows older than maxAge.
	OutboxByAge(ctx context.Context, maxAge time.Duration, batch int) (int64, error)
	// OutboxByCount deletes up to batch rows of state beyond the newest
	// keep rows of that state.
	OutboxByCount(ctx context.Context, state State, keep, batch int) (int64, error)
	// InboxByAge deletes up to batch processed or dead rows older than
	// maxAge.
	InboxByAge(ctx context.Context, maxAge time.Duration, batch int) (int64, error)
}

// Stores is one database's set of stores, opened, migrated and checked
// for the configured layout: what every role's wiring asks for. Each
// constructor renders its statements once and may be called more than
// once. Stores is safe for concurrent use; Close it once, after every
// store it built is no longer used.
type Stores interface {
	// Outbox is the poller's store; lease is outbox.claimTimeoutMs.
	Outbox(lease time.Duration) (OutboxStore, error)
	// Relay is the relay's store.
	Relay(p RelayParams) (RelayStore, error)
	// Inbox is the sources' store.
	Inbox() (InboxStore, error)
	// Replay is the admin replay's store.
	Replay() (Replayer, error)
	// Retention is the cleanup jobs' store.
	Retention() (RetentionStore, error)
	// Ping checks that the database answers: the database health check.
	Ping(ctx context.Context) error
	// Close releases the connections.
	Close()
}
