package wake

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Querier is the part of *pgxpool.Pool and *pgx.Conn that PG uses.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// PG is the PostgreSQL Sender.
type PG struct{ Q Querier }

// notifySQL sends one empty notification. pg_notify takes the channel as a
// parameter, so no SQL is built from text.
const notifySQL = "SELECT pg_notify($1, '')"

// Notify implements Sender.
func (p PG) Notify(ctx context.Context, channel string) error {
	_, err := p.Q.Exec(ctx, notifySQL, channel)
	return err
}

// runningSQL returns those of the 32-bit xids in $1 that the snapshot
// snap does not count as finished. The stream gives 32-bit ids; the
// snapshot functions take 64-bit ones (epoch and xid), so each id is
// placed at its signed 32-bit distance from the snapshot's xmax: running
// transactions span far less than 2^31 ids, so the nearest one is it.
// pg_visible_in_snapshot is false for an id at or past xmax and for one
// in the snapshot's list of running ids. (PostgreSQL 13 and later.)
func runningSQL(snap string) string {
	return fmt.Sprintf(`SELECT x FROM unnest($1::bigint[]) AS x, (SELECT %s AS snap) AS s
WHERE NOT pg_visible_in_snapshot((pg_snapshot_xmax(s.snap)::text::bigint
  + (x - pg_snapshot_xmax(s.snap)::text::bigint %% 4294967296 + 6442450944) %% 4294967296 - 2147483648)::text::xid8, s.snap)`, snap)
}

var runningNow = runningSQL("pg_current_snapshot()")

// Running implements Sender. Each call takes a new snapshot.
func (p PG) Running(ctx context.Context, xids []uint32) ([]uint32, error) {
	return running(ctx, p.Q, runningNow, xids)
}

func running(ctx context.Context, q Querier, sql string, xids []uint32) ([]uint32, error) {
	ids := make([]int64, len(xids))
	for i, x := range xids {
		ids[i] = int64(x)
	}
	rows, err := q.Query(ctx, sql, ids)
	if err != nil {
		return nil, err
	}
	still, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (uint32, error) {
		var x int64
		err := r.Scan(&x)
		return uint32(x), err
	})
	if err != nil {
		return nil, fmt.Errorf("check which committed transactions are visible: %w", err)
	}
	return still, nil
}
