package queuebox

import (
	"context"
	"errors"
	"time"
)

// ErrNotSupported reports a diagnostic reading that a dialect cannot
// make because its database has no such thing (SQL Server has no
// replication slot and no dead tuples). The caller reports the check as
// skipped, naming the dialect, and carries on.
var ErrNotSupported = errors.New("this database has no equivalent")

// Diagnostics reads the facts that `queuebox migrate status` and
// `queuebox doctor` judge: the migration history, the indexes, the
// backlog and dead rows, and the health of the tables and the server. It
// changes nothing. It opens without the startup schema guard, so it
// reads a database that is behind or broken. Each method may return an
// error matching ErrNotSupported. Implementations are safe for
// concurrent use; Close them once, after the last call. A cancelled ctx
// cancels the statement of the call in flight.
type Diagnostics interface {
	// Dialect names the database kind: "postgres" or "sqlserver".
	Dialect() string
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Migrations compares the history table with the bundled migration
	// files, one entry per version of either, in version order.
	Migrations(ctx context.Context) ([]MigrationStatus, error)
	// MissingIndexes names each index of the relay claim (V12) that the
	// inbox table lacks, with the statement that creates it.
	MissingIndexes(ctx context.Context) ([]string, error)
	// Backlog counts the pending and dead rows by topic and by source.
	Backlog(ctx context.Context) (Backlog, error)
	// Tables reads the cleanup state of the outbox and inbox tables.
	Tables(ctx context.Context) ([]TableHealth, error)
	// OldestTransaction returns the oldest transaction open on this
	// database, and false when none is open besides the caller's.
	OldestTransaction(ctx context.Context) (OpenTransaction, bool, error)
	// Connections reads the server's connection limit and use.
	Connections(ctx context.Context) (Connections, error)
	// Capture reads what change data capture needs of the database; slot
	// is outbox.capture.slot.
	Capture(ctx context.Context, slot string) (CaptureHealth, error)
	// Close releases the connections.
	Close()
}

// MigrationState is where one migration version stands.
type MigrationState string

// Migration states. Applied: in the history with the bundled checksum.
// Pending: bundled but not in the history. Mismatch: applied, but the
// history's checksum differs from the bundled file (the file changed
// after it ran). Failed: the history marks it failed. Unknown: in the
// history, but this build bundles no such file (a newer QueueBox ran it).
const (
	MigrationApplied  MigrationState = "applied"
	MigrationPending  MigrationState = "pending"
	MigrationMismatch MigrationState = "mismatch"
	MigrationFailed   MigrationState = "failed"
	MigrationUnknown  MigrationState = "unknown"
)

// MigrationStatus is one version of the history or of the bundled files.
type MigrationStatus struct {
	Version int
	Script  string
	State   MigrationState
	// FileChecksum is the bundled file's; nil for an unknown version.
	FileChecksum *int32
	// AppliedChecksum is the history's; nil when pending or not recorded.
	AppliedChecksum *int32
}

// Backlog is the pending and dead rows of both tables, grouped.
type Backlog struct {
	// PendingByTopic is the outbox's pending rows per topic and
	// destination (Group.Destination).
	PendingByTopic []Group
	// PendingBySource is the inbox's pending rows per source.
	PendingBySource []Group
	// DeadByTopic is the outbox's dead rows per topic and destination.
	DeadByTopic []Group
	// DeadBySource is the inbox's dead rows per source.
	DeadBySource []Group
}

// Group is the rows of one topic or source.
type Group struct {
	Name string
	// Destination is the destination the outbox rows of the group were
	// routed to: each delivery of a fan-out is its own group. It is ""
	// for the inbox's groups, and for outbox rows not routed yet (a keyed
	// row before its routing, a row without a key before its claim) or
	// in a table without the lane columns.
	Destination string
	Count       int64
	// OldestAge is the age of the oldest row by created_at, measured by
	// the database clock.
	OldestAge time.Duration
}

// TableHealth is the cleanup state of one table.
type TableHealth struct {
	// Table is the table's name as configured.
	Table    string
	LiveRows int64
	DeadRows int64
	// LastAutovacuum is the end of the last automatic vacuum; nil when
	// none ran since the statistics were reset.
	LastAutovacuum *time.Time
	// AutovacuumOn is false when the server or the table turned it off.
	AutovacuumOn bool
}

// OpenTransaction is a transaction that keeps cleanup from removing the
// row versions that died after it started.
type OpenTransaction struct {
	PID   int64
	Age   time.Duration
	State string
	// Query is the start of the session's last statement.
	Query string
}

// Connections is the server's connection limit and the sessions open.
type Connections struct {
	Max      int
	Open     int
	Reserved int
}

// CaptureHealth is what capture needs of the database.
type CaptureHealth struct {
	// WALLevel is PostgreSQL's wal_level.
	WALLevel string
	// SlotExists says whether the replication slot exists.
	SlotExists bool
	// SlotActive says whether a session reads the slot now.
	SlotActive bool
	// RetainedBytes is the write-ahead log the slot holds back.
	RetainedBytes int64
}
