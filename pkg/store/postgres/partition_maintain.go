package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// maintenanceLockSQL tries the session lock of one table's partition
// maintenance, keyed on the schema and the table, so that one process
// at a time creates partitions (two ATTACHes of one range would fail).
const (
	maintenanceLockSQL   = `SELECT pg_try_advisory_lock(hashtext('queuebox.partitions.' || current_schema() || '.' || $1::text))`
	maintenanceUnlockSQL = `SELECT pg_advisory_unlock(hashtext('queuebox.partitions.' || current_schema() || '.' || $1::text))`
)

// Partitions implements queuebox.Partitioner: the set itself is the
// partition store when the database is partitioned.
func (s *Stores) Partitions() (queuebox.PartitionStore, bool) {
	if !s.Partitioning.Enabled {
		return nil, false
	}
	return s, true
}

var _ queuebox.Partitioner = (*Stores)(nil)

// PartitionsMaintain implements queuebox.PartitionStore.
func (s *Stores) PartitionsMaintain(ctx context.Context, table queuebox.Table) ([]string, bool, error) {
	return s.DB.maintainPartitions(ctx, s.tableOf(table), s.Partitioning, time.Time{})
}

func (s *Stores) tableOf(table queuebox.Table) partTable {
	tables := partitionedTables(s.Layout)
	if table == queuebox.TableInbox {
		return tables[1]
	}
	return tables[0]
}

// maintainPartitions creates the missing partitions of t under its
// maintenance lock, taken on a connection of its own and released at the
// end; owner is false when another session holds it.
func (db *DB) maintainPartitions(ctx context.Context, t partTable, p Partitioning, now time.Time) (created []string, owner bool, err error) {
	conn, err := db.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("maintain the partitions of %s: %w", t.raw, err)
	}
	defer conn.Release()
	if err := conn.QueryRow(ctx, maintenanceLockSQL, t.raw).Scan(&owner); err != nil {
		return nil, false, fmt.Errorf("maintain the partitions of %s: take the lock: %w", t.raw, err)
	}
	if !owner {
		return nil, false, nil
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, maintenanceUnlockSQL, t.raw); err != nil {
			conn.Conn().Close(uctx) //nolint:errcheck // dropping the session releases the lock
		}
	}()
	created, err = db.ensureTablePartitions(ctx, t, p, now, slog.New(slog.DiscardHandler))
	return created, true, err
}
