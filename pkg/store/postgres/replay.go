package postgres

import (
	"context"
	"fmt"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
)

// Replay moves final outbox rows back to pending for the admin route.
type Replay struct {
	db                    *DB
	update, topics, count string
}

// NewReplay renders the replay statements.
func NewReplay(db *DB, l schema.Layout) (*Replay, error) {
	r := &Replay{db: db}
	err := renderAll(l, map[*string]string{
		&r.update: "outbox_replay", &r.topics: "outbox_replay_topics", &r.count: "outbox_replay_count",
	})
	return r, err
}

func replayArgs(f queuebox.ReplayFilter) []any {
	return []any{f.IDs, f.Topics, f.CreatedAfter, f.CreatedBefore}
}

// limitArg is the LIMIT of a statement: nil (no limit) for 0.
func limitArg(n int) any {
	if n <= 0 {
		return nil
	}
	return n
}

// Topics lists the distinct topics of the final rows the filter selects.
func (r *Replay) Topics(ctx context.Context, f queuebox.ReplayFilter) ([]string, error) {
	var out []string
	err := r.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, r.topics, replayArgs(f)...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list replay topics: %w", err)
	}
	return out, nil
}

// Move moves at most limit (0: every) of the selected sent and dead rows
// to pending in one statement and returns how many moved.
func (r *Replay) Move(ctx context.Context, f queuebox.ReplayFilter, limit int) (int64, error) {
	return r.db.execCount(ctx, once, "replay outbox rows", r.update, append(replayArgs(f), limitArg(limit))...)
}

// Count returns how many sent and dead rows the filter selects, counting
// at most limit (0: every).
func (r *Replay) Count(ctx context.Context, f queuebox.ReplayFilter, limit int) (int64, error) {
	var n int64
	err := r.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, r.count, append(replayArgs(f), limitArg(limit))...).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("count replay rows: %w", err)
	}
	return n, nil
}
