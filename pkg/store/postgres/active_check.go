package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Checks beside the claims.
//
// A claimer keeps lower bounds for its scans: where its scans of rows
// without a key start (package scanfloor) and, on a partitioned table,
// where its read of the oldest active row starts (package lanehint). A
// row committed late can fall below such a bound, and something must read
// from the start of the index to find it. Under a transaction open for
// many minutes that read steps over every entry the transaction keeps,
// seconds of work; inside a claim, the claim loop would wait for it. So
// it runs beside the claims instead, as a read of one time that can only
// lower the bound (outbox_oldest_unkeyed.sql, outbox_oldest_active.sql,
// and the inbox's two), on the schedule the bound's package keeps.

// checkBeside starts a read of one nullable time, stmt with args, in the
// background, and gives record when it started, how long it took and what
// it read: nil when the statement read NULL or failed (a failed check
// lowers nothing, and the next one is due on the same schedule). It runs
// under the DB's background context, so Close ends it, with the statement
// bound, and under claimSetting: each of these reads an index in its
// order and stops at the first row, as the claims do.
func (db *DB) checkBeside(now func() time.Time, stmt string, args []any, record func(start time.Time, took time.Duration, read *time.Time)) {
	go func() {
		ctx, cancel := context.WithTimeout(db.background, db.statementTimeout)
		defer cancel()
		start := now()
		t0 := time.Now()
		var read *time.Time
		err := db.on(ctx, repeatable, func(ctx context.Context, conn *pgxpool.Conn) error {
			read = nil
			return queryClaim(ctx, conn, func(rows pgx.Rows) error {
				var err error
				read, err = pgx.CollectExactlyOneRow(rows, pgx.RowTo[*time.Time])
				return err
			}, stmt, args...)
		})
		if err != nil {
			read = nil
		}
		record(start, time.Since(t0), read)
	}()
}

// orZero is *t, or the zero time for nil: scanfloor's "read none".
func orZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
