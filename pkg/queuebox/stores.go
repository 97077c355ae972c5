package queuebox

import (
	"context"
	"log/slog"
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
	// LedgerByAge deletes up to batch rows of the delivery ledger that
	// started more than maxAge ago; it deletes nothing, and says 0, on a
	// database without the ledger's table.
	LedgerByAge(ctx context.Context, maxAge time.Duration, batch int) (int64, error)
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
	// Workbench is the store of the operator's workbench: the admin
	// message routes, the replay jobs and the CLI's dead commands.
	Workbench() (WorkbenchStore, error)
	// WakeSource returns the listener of capture's wake-ups that this
	// dialect offers, calling wake for each wake-up and logging to log,
	// and true; false when the dialect has none, and delivery claims at
	// outbox.pollIntervalMs alone. wake must not block.
	WakeSource(wake func(), log *slog.Logger) (WakeSource, bool)
	// Ping checks that the database answers: the database health check.
	Ping(ctx context.Context) error
	// Close releases the connections.
	Close()
}

// WakeSource carries capture's wake-ups to one deliver replica: it calls
// its wake function once for each wake-up, and once more after each
// (re)connect, because the wake-ups sent while it was away are lost. A
// lost wake-up costs latency, never a message: the poller claims on its
// timer too. It has the component contract of package run: Run returns
// nil once ctx ends, and a lost connection is retried inside Run.
type WakeSource interface {
	// Name is the component name: outbox-wake-listener.
	Name() string
	Run(ctx context.Context) error
}
