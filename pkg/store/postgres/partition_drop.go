package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

var _ queuebox.PartitionRetention = (*Retention)(nil)

// OutboxDropPartitions implements queuebox.PartitionRetention. The outbox
// ages a row by updated_at, which the partition bounds do not bound: a
// candidate partition is read whole once, without a lock, for a row that
// is not final or changed less than maxAge ago.
func (r *Retention) OutboxDropPartitions(ctx context.Context, maxAge time.Duration) (int64, error) {
	if !r.partitioned {
		return 0, nil
	}
	return r.db.dropPartitions(ctx, partitionedTables(r.layout)[0], maxAge, r.layout.O.UpdatedAt)
}

// InboxDropPartitions implements queuebox.PartitionRetention. The inbox
// ages a row by created_at, the partition key, so a partition whose upper
// bound is older than maxAge holds old rows only.
func (r *Retention) InboxDropPartitions(ctx context.Context, maxAge time.Duration) (int64, error) {
	if !r.partitioned {
		return 0, nil
	}
	return r.db.dropPartitions(ctx, partitionedTables(r.layout)[1], maxAge, "")
}

// dropPartitions drops every partition of t whose range ended more than
// maxAge ago and whose rows are all final (and, with ageColumn, all last
// changed more than maxAge ago). It returns the rows they held.
func (db *DB) dropPartitions(ctx context.Context, t partTable, maxAge time.Duration, ageColumn string) (int64, error) {
	var now time.Time
	if err := db.Pool.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		return 0, fmt.Errorf("read the database clock: %w", err)
	}
	cutoff := now.Add(-maxAge)
	parts, err := listPartitions(ctx, db.Pool, t.quoted)
	if err != nil {
		return 0, err
	}
	var dropped int64
	for _, p := range parts {
		if p.isDefault || p.to.After(cutoff) {
			continue
		}
		rows, keep, err := db.readCandidate(ctx, t, p.name, ageColumn, cutoff)
		if err != nil {
			return dropped, err
		}
		if keep {
			continue
		}
		ok, err := db.dropPartition(ctx, t, p.name)
		if err != nil {
			return dropped, err
		}
		if ok {
			dropped += rows
		}
	}
	return dropped, nil
}

// readCandidate reads a whole partition, without a lock, for its rows and
// for a row that keeps it: a state that is not final or, with ageColumn,
// a change at or after cutoff. dropPartition checks again, under its
// lock, what could have changed since: a row made pending again by a
// replay.
func (db *DB) readCandidate(ctx context.Context, t partTable, name, ageColumn string, cutoff time.Time) (rows int64, keep bool, err error) {
	cond, args := t.state+` NOT IN ($1, $2)`, []any{t.final[0], t.final[1]}
	if ageColumn != "" {
		cond, args = cond+` OR `+ageColumn+` >= $3`, append(args, cutoff)
	}
	err = db.Pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE `+cond+`) > 0 FROM `+quoteIdent(name),
		args...).Scan(&rows, &keep)
	if err != nil {
		return 0, false, fmt.Errorf("read the partition %s: %w", name, err)
	}
	return rows, keep, nil
}

// dropPartition drops one partition in one transaction: it locks the
// parent table (every reader and writer waits, for as long as the index
// probe below and the drop take, or partitionLockTimeout at most for the
// lock), checks that no pending or processing row is in the partition,
// which the partial indexes of those states answer, and drops it. It
// reports false when it kept the partition, or when the lock timed out:
// the next cleanup tries again.
func (db *DB) dropPartition(ctx context.Context, t partTable, name string) (bool, error) {
	dropped := false
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '"+partitionLockTimeout+"'"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "LOCK TABLE ONLY "+t.quoted+" IN ACCESS EXCLUSIVE MODE"); err != nil {
			return err
		}
		var live bool
		err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+quoteIdent(name)+` WHERE `+t.state+` IN ('pending', 'processing'))`).Scan(&live)
		if err != nil || live {
			return err
		}
		if _, err = tx.Exec(ctx, "DROP TABLE "+quoteIdent(name)); err != nil {
			return err
		}
		dropped = true
		return nil
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("drop the partition %s: %w", name, err)
	}
	return dropped, nil
}
