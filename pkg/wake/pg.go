package wake

import (
	"context"
	"embed"
	"fmt"
	"strings"

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

//go:embed queries/*.sql
var queries embed.FS

// query returns the statement of queries/<name>.sql.
func query(name string) string {
	b, err := queries.ReadFile("queries/" + name + ".sql")
	if err != nil {
		panic(err) // the file list is fixed at build time
	}
	return string(b)
}

var notifySQL = query("notify")

// Notify implements Sender.
func (p PG) Notify(ctx context.Context, channel string) error {
	_, err := p.Q.Exec(ctx, notifySQL, channel)
	return err
}

// runningSQL renders queries/running.sql for the snapshot expression
// snap: pg_current_snapshot() in production, a literal one in tests.
func runningSQL(snap string) string {
	return strings.ReplaceAll(query("running"), "{{.}}", snap)
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
