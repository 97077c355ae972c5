// Package postgres is the PostgreSQL side of the wake-ups: the Listener
// that every deliver replica runs (a LISTEN on wake.Channel on a session
// of its own), and PG, the NOTIFY and visibility check that the capture
// owner's wake.Notifier sends through. The store set offers the
// Listener (pkg/store/postgres WakeSource); the postgres-logical
// connector (pkg/capture/postgres) sends.
package postgres

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Querier is the part of *pgxpool.Pool and *pgx.Conn that PG uses.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// PG is the PostgreSQL wake.Sender of the capture owner's Notifier: a
// NOTIFY, and the visibility check of committed transactions. It is as
// safe for concurrent use as its Querier.
type PG struct{ Q Querier }

// The statements of PG, one per file.
var (
	//go:embed queries/notify.sql
	notifySQL string
	//go:embed queries/running.sql
	runningSQL string
)

// Notify implements wake.Sender.
func (p PG) Notify(ctx context.Context, channel string) error {
	_, err := p.Q.Exec(ctx, notifySQL, channel)
	return err
}

// Running implements wake.Sender. Each call takes a new snapshot.
func (p PG) Running(ctx context.Context, xids []uint32) ([]uint32, error) {
	return running(ctx, p.Q, nil, xids)
}

// running asks which of xids snap (its text form; nil for a new
// snapshot) still counts as running.
func running(ctx context.Context, q Querier, snap *string, xids []uint32) ([]uint32, error) {
	ids := make([]int64, len(xids))
	for i, x := range xids {
		ids[i] = int64(x)
	}
	rows, err := q.Query(ctx, runningSQL, ids, snap)
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
