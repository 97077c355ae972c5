// Package storetest is the suite that every store dialect must pass: every
// method of every store interface of pkg/queuebox (the claim, lease and
// fence invariants of the spec, ordering, the gauges, the replay and the
// cleanups) runs against a real database through those interfaces alone.
// An invariant that the outbox and the inbox share is written once and
// runs for each table (sides.go; the claim, lease and fence cases in
// fence.go, over the claim protocol of leases.go). A dialect's test
// calls Exercise with a factory of fresh, migrated databases, like
// riverdrivertest.Exercise in River:
//
//	func TestStore(t *testing.T) {
//		storetest.Exercise(t, func(t *testing.T) storetest.Database { ... })
//	}
//
// The suite seeds and inspects rows through Rows, which each dialect
// implements in its own SQL, so that the cases themselves name no
// dialect. Time comes from a Clock the suite hands to the stores (their
// nullable now parameter), so lease cases move time forward instead of
// waiting it out.
package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Factory gives each case a fresh database with the bundled migrations
// applied, seen by no other case. It fails t when it cannot, and releases
// everything it opened (pools, schemas) when t ends.
type Factory func(t *testing.T) Database

// Database is one fresh, migrated database under test.
type Database interface {
	// Stores opens another store set on this database, as another
	// replica would: connections of its own. Its lease statements read
	// the time from now (never nil in the suite). The database closes it
	// when t ends; the suite never calls Close.
	Stores(t testing.TB, now func() time.Time) queuebox.Stores
	// StoresWithoutLedger is Stores with the delivery ledger's writes
	// off (outbox.ledger.enabled false).
	StoresWithoutLedger(t testing.TB, now func() time.Time) queuebox.Stores
	Rows
}

// Table names one of the two tables for Rows.Hold.
type Table int

// The two tables.
const (
	OutboxTable Table = iota
	InboxTable
)

// Rows seeds rows and reads their state in the dialect's own SQL. Its
// methods are safe for concurrent use and fail t on an error.
type Rows interface {
	// InsertOutbox inserts rows, as an application does, in one
	// transaction and in the order given (so their sequence follows
	// that order and, unless a row sets its own, they share a
	// created_at), and returns their ids. Columns the row leaves zero
	// take the table defaults.
	InsertOutbox(t testing.TB, rows ...OutboxRow) []string
	// InsertInbox inserts rows in one transaction and returns their ids.
	// Columns the row leaves zero take the table defaults.
	InsertInbox(t testing.TB, rows ...InboxRow) []string
	// Now reads the database clock: the clock of the statements that
	// measure ages (gauges, cleanups, the replay's new schedule), which
	// the suite's Clock does not move.
	Now(t testing.TB) time.Time
	// Outbox reads one outbox row.
	Outbox(t testing.TB, id string) OutboxState
	// OutboxRows reads every outbox row, in sequence order.
	OutboxRows(t testing.TB) []OutboxState
	// Inbox reads one inbox row.
	Inbox(t testing.TB, id string) InboxState
	// InboxRows reads every inbox row, in no particular order.
	InboxRows(t testing.TB) []InboxState
	// InFlight returns the ids of the processing rows of one unit of
	// order: the outbox rows of key, or the push inbox rows of aggregate
	// id key (any source). The suite calls it from its claimers'
	// goroutines, so it returns its error instead of failing a test.
	InFlight(ctx context.Context, table Table, key string) ([]string, error)
	// CompareIDs orders two row ids as the database orders them: the
	// order in which the fenced writes lock rows.
	CompareIDs(a, b string) int
	// Hold locks the rows ids of table in a transaction of its own, as a
	// concurrent statement that is about to commit would, until Release.
	Hold(t testing.TB, table Table, ids ...string) Holder
}

// Holder is a transaction that holds row locks (Rows.Hold).
type Holder interface {
	// WaitBlocked returns once n statements wait on the held rows,
	// directly or behind another waiter; it fails t if that does not
	// happen within a generous bound.
	WaitBlocked(t testing.TB, n int)
	// Release ends the transaction and lets the rows go.
	Release(t testing.TB)
}

// OutboxRow is an outbox row as an application inserts it.
type OutboxRow struct {
	Topic string
	// Key is nil for a row without a key.
	Key *string
	// Payload is JSON text; empty inserts {}.
	Payload string
	// MaxAttempts is zero for the column default.
	MaxAttempts int
	// State is empty for the column default (pending). Attempt and
	// LastError go with it: a row as a failed delivery left it.
	State     queuebox.State
	Attempt   int
	LastError *string
	// CreatedAt, UpdatedAt and ScheduledAt are zero for the column
	// default (the database's now).
	CreatedAt, UpdatedAt, ScheduledAt time.Time
	// Destination is the lane's destination. Empty gives a keyed row
	// DefaultDestination, as if routed (the claim takes no keyed row
	// before it is routed), unless Unrouted is set; a row without a key
	// keeps it empty.
	Destination string
	Unrouted    bool
}

// DefaultDestination is the destination InsertOutbox gives a keyed row
// that names none.
const DefaultDestination = "dest"

// DestinationColumn is the value of the destination column that a
// dialect's InsertOutbox writes for r.
func (r OutboxRow) DestinationColumn() string {
	switch {
	case r.Destination != "" || r.Unrouted:
		return r.Destination
	case r.Key != nil && *r.Key != "":
		return DefaultDestination
	}
	return ""
}

// InboxRow is an inbox row as a source or an earlier relay left it.
type InboxRow struct {
	Source, IdempotencyKey string
	// Consumption is empty for push.
	Consumption string
	// State is empty for the column default (pending).
	State queuebox.State
	// CreatedAt is zero for the column default (the database's now).
	CreatedAt time.Time
}

// OutboxState is an outbox row as the suite inspects it.
type OutboxState struct {
	ID          string
	Topic       string
	Key         *string
	Payload     string // JSON text
	Headers     string // JSON object text
	State       queuebox.State
	Attempt     int
	MaxAttempts int
	LastError   *string
	ClaimToken  string // empty when null
	ScheduledAt time.Time
	// LeaseExpiresAt is nil when no lease is recorded.
	LeaseExpiresAt *time.Time
	Sequence       int64
	Destination    string
	OriginID       string // empty when null
}

// InboxState is an inbox row as the suite inspects it.
type InboxState struct {
	ID             string
	State          queuebox.State
	ClaimToken     string // empty when null
	LeaseExpiresAt *time.Time
	LastError      *string
	ProcessedAt    *time.Time
	Payload        string // JSON text
	Attempt        int
}

// Clock is a stopped clock that a case moves by hand; the stores read it
// through their nullable now parameter. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock stopped an hour after the host's time, so that
// every row a case inserts (stamped by the database clock) is already due.
func NewClock() *Clock {
	return &Clock{now: time.Now().Add(time.Hour).Truncate(time.Millisecond)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Exercise runs every case of the suite, each in parallel on a database
// of its own from newDatabase.
func Exercise(t *testing.T, newDatabase Factory) {
	t.Helper()
	for name, run := range map[string]func(*testing.T, Database){
		"OutboxClaimTakesTheHeadOfEachKey":             outboxClaimTakesTheHeadOfEachKey,
		"OutboxClaimSkipsLockedRows":                   outboxClaimSkipsLockedRows,
		"OutboxRetryWaitsForItsDelay":                  outboxRetryWaitsForItsDelay,
		"OutboxFinishAgainCountsCommittedWrites":       outboxFinishAgainCountsCommittedWrites,
		"OutboxDeferKeepsAttemptAndHoldsItsKey":        outboxDeferKeepsAttemptAndHoldsItsKey,
		"OutboxPostponeMovesTheDueRowsOfItsTopics":     outboxPostponeMovesTheDueRowsOfItsTopics,
		"OutboxLanesOfOneKeyRunApart":                  outboxLanesOfOneKeyRunApart,
		"OutboxAssignFansOutOnce":                      outboxAssignFansOutOnce,
		"OutboxFinishRecordsTheDestination":            outboxFinishRecordsTheDestination,
		"OutboxConcurrentLanesBesideAFailingOne":       outboxConcurrentLanesBesideAFailingOne,
		"InboxInsertDeduplicates":                      inboxInsertDeduplicates,
		"InboxConcurrentInsertsOfOneKey":               inboxConcurrentInsertsOfOneKey,
		"InboxBatchTellsEachRowInOrder":                inboxBatchTellsEachRowInOrder,
		"OutboxFinishKeepsEveryReason":                 outboxFinishKeepsEveryReason,
		"InboxConcurrentBatchesOfOverlappingKeys":      inboxConcurrentBatchesOfOverlappingKeys,
		"RelayClaimKeepsAggregateOrder":                relayClaimKeepsAggregateOrder,
		"RelayForwardWritesOneRowPerKeptLease":         relayForwardWritesOneRowPerKeptLease,
		"RelayExpiredClaimsEndInDead":                  relayExpiredClaimsEndInDead,
		"RelayOldestPendingAgeCoversPullRows":          relayOldestPendingAgeCoversPullRows,
		"OutboxPendingCountsPerTopic":                  outboxPendingCountsPerTopic,
		"OutboxNextDueIsTheEarliestFutureRow":          outboxNextDueIsTheEarliestFutureRow,
		"ReplayFiltersSelectFinalRows":                 replayFiltersSelectFinalRows,
		"ReplayMovesAndCountsUpToTheLimit":             replayMovesAndCountsUpToTheLimit,
		"ReplaysOfReplicasMoveEachRowOnce":             replaysOfReplicasMoveEachRowOnce,
		"ReplayedRowIsClaimedAgain":                    replayedRowIsClaimedAgain,
		"OutboxCleanupByAgeCountsFromTheLastChange":    outboxCleanupByAgeCountsFromTheLastChange,
		"OutboxCleanupByCountKeepsTheNewest":           outboxCleanupByCountKeepsTheNewest,
		"StoresBuildEveryStoreAndPing":                 storesBuildEveryStoreAndPing,
		"StoresWakeSourceWakesOnceItListens":           storesWakeSourceWakesOnceItListens,
		"WorkbenchListIsStableUnderInserts":            workbenchListIsStableUnderInserts,
		"WorkbenchListFilters":                         workbenchListFilters,
		"WorkbenchResendMovesOnlyFinalRowsOnce":        workbenchResendMovesOnlyFinalRowsOnce,
		"WorkbenchDiscardMarksDeadRowsOnce":            workbenchDiscardMarksDeadRowsOnce,
		"WorkbenchOverviewBoundsTopics":                workbenchOverviewBoundsTopics,
		"WorkbenchReplayJobMovesEachRowOnce":           workbenchReplayJobMovesEachRowOnce,
		"WorkbenchReplayJobFailIsFenced":               workbenchReplayJobFailIsFenced,
		"WorkbenchDestinationSelectsOneDelivery":       workbenchDestinationSelectsOneDelivery,
		"WorkbenchBackfillAddsEachMissingDeliveryOnce": workbenchBackfillAddsEachMissingDeliveryOnce,
		"WorkbenchReplayJobAddsMissingDeliveries":      workbenchReplayJobAddsMissingDeliveries,
		"WorkbenchReplayJobBackfillsAlone":             workbenchReplayJobBackfillsAlone,
		"WorkbenchListPagesThroughSharedSequences":     workbenchListPagesThroughSharedSequences,
		"PausesRecordedPerReplicaUntilTheyEnd":         pausesRecordedPerReplicaUntilTheyEnd,
		"LedgerRecordsOneAttemptPerKeptOutcome":        ledgerRecordsOneAttemptPerKeptOutcome,
		"LedgerNamesTheMessageOfEachDelivery":          ledgerNamesTheMessageOfEachDelivery,
		"LedgerOffRecordsNothing":                      ledgerOffRecordsNothing,
		"LedgerCleanupByAgeDeletesInBatches":           ledgerCleanupByAgeDeletesInBatches,
		"UndeliveredListsDeadAndRetryingRows":          undeliveredListsDeadAndRetryingRows,
		"DestinationActivityCountsPendingAndAttempts":  destinationActivityCountsPendingAndAttempts,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run(t, newDatabase(t))
		})
	}
	// The invariants both tables share, once for each.
	for name, run := range map[string]func(*testing.T, Database, side){
		"ConcurrentClaimers":                  concurrentClaimers,
		"StaleOrExpiredLeaseWritesNothing":    staleOrExpiredLeaseWritesNothing,
		"ReclaimTakesOnlyExpiredLeases":       reclaimTakesOnlyExpiredLeases,
		"ReclaimSkipsAHeldRow":                reclaimSkipsAHeldRow,
		"RenewAndEndingsDoNotDeadlock":        renewAndEndingsDoNotDeadlock,
		"OldestPendingAge":                    oldestPendingAge,
		"CleanupByAgeDeletesOnlyOldFinalRows": cleanupByAgeDeletesOnlyOldFinalRows,
		"CleanupByAgeDeletesInBatches":        cleanupByAgeDeletesInBatches,
		"CleanupsOfReplicasDeleteEachRowOnce": cleanupsOfReplicasDeleteEachRowOnce,
	} {
		for _, s := range sides {
			t.Run(s.name+name, func(t *testing.T) {
				t.Parallel()
				run(t, newDatabase(t), s)
			})
		}
	}
}
