package sqlserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
)

// Replay moves final outbox rows back to pending for the admin route. It
// is safe for concurrent use.
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

var _ queuebox.Replayer = (*Replay)(nil)

// replayArgs are @p1 to @p4 of the replay statements: the lists as JSON
// arrays (nil: no filter; empty: nothing), the bounds in UTC.
func replayArgs(f queuebox.ReplayFilter) []any {
	list := func(v []string) any {
		if v == nil {
			return nil
		}
		b, _ := json.Marshal(v) // a string slice always encodes
		return string(b)
	}
	args := []any{list(f.IDs), list(f.Topics), nil, nil}
	if f.CreatedAfter != nil {
		args[2] = f.CreatedAfter.UTC()
	}
	if f.CreatedBefore != nil {
		args[3] = f.CreatedBefore.UTC()
	}
	return args
}

// limitArg is the TOP bound of a statement: NULL (no bound) for 0.
func limitArg(n int) any {
	if n <= 0 {
		return nil
	}
	return int64(n)
}

// Topics lists the distinct topics of the final rows the filter selects.
func (r *Replay) Topics(ctx context.Context, f queuebox.ReplayFilter) ([]string, error) {
	out, err := r.db.strings(ctx, r.topics, replayArgs(f)...)
	if err != nil {
		return nil, fmt.Errorf("list replay topics: %w", err)
	}
	return out, nil
}

// Move moves at most limit (0: every) of the selected sent and dead rows
// to pending in one statement and returns how many moved.
func (r *Replay) Move(ctx context.Context, f queuebox.ReplayFilter, limit int) (int64, error) {
	return r.db.execCount(ctx, "replay outbox rows", r.update, append(replayArgs(f), limitArg(limit))...)
}

// Count returns how many sent and dead rows the filter selects, counting
// at most limit (0: every).
func (r *Replay) Count(ctx context.Context, f queuebox.ReplayFilter, limit int) (int64, error) {
	var n int64
	err := r.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, r.count, append(replayArgs(f), limitArg(limit))...).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("count replay rows: %w", err)
	}
	return n, nil
}
