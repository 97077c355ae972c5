package queuebox

import (
	"context"
	"time"
)

// PartitionStore keeps the time partitions of the outbox and inbox tables
// when the database partitions them by created_at. Implementations are
// safe for concurrent use.
type PartitionStore interface {
	// PartitionsMaintain creates the partitions of table that are missing
	// from the one of now to the configured number ahead, when this
	// process wins the table's maintenance lock, and returns their
	// names. owner is false, and nothing is done, while another process
	// holds the lock. Cancelling ctx stops it between two partitions; a
	// partition is created whole or not at all.
	PartitionsMaintain(ctx context.Context, table Table) (created []string, owner bool, err error)
}

// Partitioner is a set of stores whose dialect can partition the tables.
// Partitions returns the partition store and true when the database is
// partitioned (database.partitioning.enabled), false otherwise.
type Partitioner interface {
	Partitions() (PartitionStore, bool)
}

// PartitionRetention is a RetentionStore that also removes whole
// partitions. Implementations are safe for concurrent use.
type PartitionRetention interface {
	// OutboxDropPartitions drops each outbox partition whose rows are all
	// sent or dead and last changed more than maxAge ago, and returns the
	// rows the dropped partitions held. A partition that still holds a
	// pending or processing row is kept, whole, for the row-by-row
	// cleanup. It drops nothing on an unpartitioned table.
	OutboxDropPartitions(ctx context.Context, maxAge time.Duration) (int64, error)
	// InboxDropPartitions is OutboxDropPartitions for the inbox: its
	// final states are processed and dead, its age is the received time.
	InboxDropPartitions(ctx context.Context, maxAge time.Duration) (int64, error)
}

// PartitionDiagnostics is a Diagnostics whose dialect can partition the
// tables; `queuebox doctor` reads it when the Diagnostics offers it.
type PartitionDiagnostics interface {
	// Partitions reads the partitions of each partitioned table, in the
	// order outbox, inbox; a table that is not partitioned is left out.
	Partitions(ctx context.Context) ([]PartitionReport, error)
}

// PartitionReport is the partitions of one table as the doctor judges
// them.
type PartitionReport struct {
	Table Table
	// Partitions counts the range partitions, the default one apart.
	Partitions int
	// Ahead is how far the last range partition reaches past now.
	Ahead time.Duration
	// DefaultRows is the rows of the default partition: rows whose
	// created_at no range partition covers.
	DefaultRows int64
	// Live lists the past partitions that hold pending or processing
	// rows, oldest first: retention keeps each of them whole.
	Live []LivePartition
}

// LivePartition is a past partition with rows that are not final.
type LivePartition struct {
	Name string
	// Ended is how long ago its range ended.
	Ended time.Duration
	// Rows is its pending and processing rows.
	Rows int64
}

// ConversionStep is one measured step of the conversion of a populated,
// unpartitioned table into a partitioned one (`queuebox migrate
// partition`): what ran, the strongest table lock it took and how long
// it waited for and then held that lock.
type ConversionStep struct {
	// Table is the table converted (outbox or inbox, as configured).
	Table string
	// Step says what ran, in a few words.
	Step string
	// Lock is the strongest lock the step took on the table, in
	// PostgreSQL's words ("SHARE UPDATE EXCLUSIVE", "ACCESS EXCLUSIVE"),
	// or empty when it took none.
	Lock string
	// Blocking is true when that lock stops the table's readers and
	// writers while it is held (and while it is waited for).
	Blocking bool
	// Waited is the time spent waiting for the lock, over every try.
	Waited time.Duration
	// Held is the time from the lock being granted to the end of the
	// step; for a step that does not block, the step's whole time.
	Held time.Duration
	// Tries counts the tries of a step that gives up waiting for its
	// lock after a bound and tries again; 1 for the others.
	Tries int
}
