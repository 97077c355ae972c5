package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/wbsql"
)

// Workbench is the store of the operator's workbench (see
// queuebox.WorkbenchStore). It is safe for concurrent use; it holds no
// connection of its own.
type Workbench struct {
	db     *DB
	layout schema.Layout
	stmts  *wbsql.Cache
}

var _ queuebox.WorkbenchStore = (*Workbench)(nil)

// NewWorkbench returns the workbench store of layout l; it renders each
// statement on first use per filter shape.
func NewWorkbench(db *DB, l schema.Layout) (*Workbench, error) {
	w := &Workbench{db: db, layout: l, stmts: wbsql.NewCache(render)}
	// Render the fixed shapes now, so a broken template fails the start.
	for _, t := range []queuebox.Table{queuebox.TableOutbox, queuebox.TableInbox} {
		d, err := wbsql.NewData(l, queuebox.MessageFilter{Table: t})
		if err != nil {
			return nil, err
		}
		for _, name := range []string{"wb_list_" + string(t), "wb_get_" + string(t), "wb_resend", "wb_discard",
			"wb_count", "wb_move", "wb_job_step", "wb_overview_states", "wb_overview_oldest", "wb_overview_dead",
			"wb_job_create", "wb_job_claim", "wb_job_fail", "wb_job_get", "wb_job_list", "wb_state", "wb_topics",
			"wb_pauses", "wb_backfill", "wb_backfill_lock", "wb_attempts", "wb_undelivered", "wb_undelivered_counts",
			"wb_destination_pending", "wb_destination_minutes"} {
			if _, err := w.stmts.Get(name, d); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// stmt renders statement name for filter f.
func (w *Workbench) stmt(name string, f queuebox.MessageFilter, cursor bool) (string, error) {
	d, err := wbsql.NewData(w.layout, f)
	if err != nil {
		return "", err
	}
	d.Cursor = cursor
	return w.stmts.Get(name, d)
}

// filterArgs binds the values of f under the names wb_filter uses.
func filterArgs(f queuebox.MessageFilter) pgx.NamedArgs {
	return pgx.NamedArgs{"ids": f.IDs, "topics": f.Topics, "source": f.Source, "key": f.Key, "error": f.Error,
		"created_after": f.CreatedAfter, "created_before": f.CreatedBefore, "destination": f.Destination,
		"unrouted_topics": f.UnroutedTopics, "message": f.Message}
}

// List implements queuebox.WorkbenchStore.
func (w *Workbench) List(ctx context.Context, f queuebox.MessageFilter, limit int, after queuebox.Cursor) (queuebox.MessagePage, error) {
	var page queuebox.MessagePage
	if !wbsql.CanMatch(f) {
		return page, nil
	}
	stmt, err := w.stmt("wb_list_"+string(f.Table), f, !after.IsZero())
	if err != nil {
		return page, err
	}
	args := filterArgs(f)
	args["limit"] = limit
	args["cursor_sequence"] = after.Sequence
	args["cursor_created_at"] = after.CreatedAt
	args["cursor_id"] = after.ID
	if f.Table == queuebox.TableOutbox {
		args["cursor_id"] = wbsql.OutboxCursorID(after)
	}
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, stmt, args)
		if err != nil {
			return err
		}
		page.Items, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (queuebox.Message, error) {
			return scanListed(f.Table, r, false)
		})
		return err
	})
	if err != nil {
		return page, fmt.Errorf("list %s rows: %w", f.Table, err)
	}
	page.Next = wbsql.NextCursor(f.Table, page.Items, limit)
	return page, nil
}

// scanListed scans the columns of wb_list_* and, when whole, the extra
// columns of wb_get_*.
func scanListed(t queuebox.Table, r pgx.CollectableRow, whole bool) (queuebox.Message, error) {
	m := queuebox.Message{Table: t}
	var payload, headers string
	if err := r.Scan(wbsql.MessageDest(&m, whole, &payload, &headers)...); err != nil {
		return m, err
	}
	wbsql.FinishMessage(&m, whole, payload, headers)
	return m, nil
}

// Get implements queuebox.WorkbenchStore.
func (w *Workbench) Get(ctx context.Context, t queuebox.Table, id string) (queuebox.Message, error) {
	stmt, err := w.stmt("wb_get_"+string(t), queuebox.MessageFilter{Table: t}, false)
	if err != nil {
		return queuebox.Message{}, err
	}
	var m queuebox.Message
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, stmt, pgx.NamedArgs{"id": id})
		if err != nil {
			return err
		}
		m, err = pgx.CollectExactlyOneRow(rows, func(r pgx.CollectableRow) (queuebox.Message, error) {
			return scanListed(t, r, true)
		})
		return err
	})
	if errors.Is(err, errNotFound) {
		return m, queuebox.ErrNotFound
	}
	if err != nil {
		return m, fmt.Errorf("read %s row: %w", t, err)
	}
	return m, nil
}

// Topics implements queuebox.WorkbenchStore.
func (w *Workbench) Topics(ctx context.Context, f queuebox.MessageFilter) ([]string, error) {
	f.Table, f.Topics = queuebox.TableOutbox, nil
	stmt, err := w.stmt("wb_topics", f, false)
	if err != nil {
		return nil, err
	}
	var out []string
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, stmt, filterArgs(f))
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list workbench topics: %w", err)
	}
	return out, nil
}

// Resend implements queuebox.WorkbenchStore.
func (w *Workbench) Resend(ctx context.Context, t queuebox.Table, id string, edit queuebox.ResendEdit) (queuebox.ResendResult, error) {
	var res queuebox.ResendResult
	stmt, err := w.stmt("wb_resend", queuebox.MessageFilter{Table: t}, false)
	if err != nil {
		return res, err
	}
	args := pgx.NamedArgs{"id": id, "payload": textOrNil(edit.Payload), "headers": textOrNil(edit.Headers)}
	var oldText, newText string
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, stmt, args).Scan(&oldText, &newText)
	})
	if errors.Is(err, errNotFound) {
		return res, w.whyUnchanged(ctx, t, id)
	}
	if err != nil {
		return res, fmt.Errorf("resend %s row: %w", t, err)
	}
	return queuebox.ResendResult{OldPayload: []byte(oldText), NewPayload: []byte(newText)}, nil
}

// textOrNil binds JSON text, or NULL for none.
func textOrNil(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// whyUnchanged tells a missing row (ErrNotFound) from one whose state
// forbade the write (ErrWrongState).
func (w *Workbench) whyUnchanged(ctx context.Context, t queuebox.Table, id string) error {
	stmt, err := w.stmt("wb_state", queuebox.MessageFilter{Table: t}, false)
	if err != nil {
		return err
	}
	var state string
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, stmt, pgx.NamedArgs{"id": id}).Scan(&state)
	})
	switch {
	case errors.Is(err, errNotFound):
		return queuebox.ErrNotFound
	case err != nil:
		return fmt.Errorf("read %s row state: %w", t, err)
	}
	return fmt.Errorf("%w: the row is %s", queuebox.ErrWrongState, state)
}

// Discard implements queuebox.WorkbenchStore.
func (w *Workbench) Discard(ctx context.Context, t queuebox.Table, id string) error {
	stmt, err := w.stmt("wb_discard", queuebox.MessageFilter{Table: t}, false)
	if err != nil {
		return err
	}
	n, err := w.db.execCount(ctx, once, "discard "+string(t)+" row", stmt, pgx.NamedArgs{"id": id})
	if err != nil {
		return err
	}
	if n == 0 {
		return w.whyUnchanged(ctx, t, id)
	}
	return nil
}

// Count implements queuebox.WorkbenchStore.
func (w *Workbench) Count(ctx context.Context, f queuebox.MessageFilter, limit int) (int64, error) {
	if !wbsql.CanMatch(f) {
		return 0, nil
	}
	stmt, err := w.stmt("wb_count", f, false)
	if err != nil {
		return 0, err
	}
	args := filterArgs(f)
	args["limit"] = limitArg(limit)
	var n int64
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error { return conn.QueryRow(ctx, stmt, args).Scan(&n) })
	if err != nil {
		return 0, fmt.Errorf("count %s rows: %w", f.Table, err)
	}
	return n, nil
}

// Move implements queuebox.WorkbenchStore.
func (w *Workbench) Move(ctx context.Context, f queuebox.MessageFilter, limit int) (int64, error) {
	f, ok := wbsql.FinalOnly(f)
	if !ok || !wbsql.CanMatch(f) {
		return 0, nil
	}
	if f.Backfill && f.Destination != "" {
		return w.backfill(ctx, f, limit)
	}
	stmt, err := w.stmt("wb_move", f, false)
	if err != nil {
		return 0, err
	}
	args := filterArgs(f)
	args["limit"] = limitArg(limit)
	return w.db.execCount(ctx, once, "replay "+string(f.Table)+" rows", stmt, args)
}

// backfill adds the missing deliveries of a Move with f.Backfill, under
// the destination's backfill lock.
func (w *Workbench) backfill(ctx context.Context, f queuebox.MessageFilter, limit int) (int64, error) {
	stmt, err := w.stmt("wb_backfill", f, false)
	if err != nil {
		return 0, err
	}
	args := filterArgs(f)
	args["limit"] = limitArg(limit)
	var n int64
	err = w.withBackfillLock(ctx, f.Destination, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, stmt, args)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("add deliveries to %s: %w", f.Destination, err)
	}
	return n, nil
}

// withBackfillLock runs fn in a transaction that first takes the
// backfill lock of dest (wb_backfill_lock.sql).
func (w *Workbench) withBackfillLock(ctx context.Context, dest string, fn func(pgx.Tx) error) error {
	lock, err := w.stmt("wb_backfill_lock", queuebox.MessageFilter{Table: queuebox.TableOutbox}, false)
	if err != nil {
		return err
	}
	return w.db.WithTx(ctx, func(tx pgx.Tx) error {
		key := "queuebox_backfill_" + w.layout.OutboxTable + "_" + dest
		if _, err := tx.Exec(ctx, lock, pgx.NamedArgs{"lock": key}); err != nil {
			return err
		}
		return fn(tx)
	})
}

// Overview implements queuebox.WorkbenchStore.
func (w *Workbench) Overview(ctx context.Context) (queuebox.Overview, error) {
	o := queuebox.Overview{Outbox: map[queuebox.State]int64{}, Inbox: map[queuebox.State]int64{},
		OldestPendingByTopic: map[string]time.Duration{}, OldestPendingBySource: map[string]time.Duration{},
		DeadByTopic: map[string]int64{}, DeadBySource: map[string]int64{}}
	err := w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		for _, t := range []queuebox.Table{queuebox.TableOutbox, queuebox.TableInbox} {
			p := overviewPart{counts: o.Outbox, discarded: &o.OutboxDiscarded, oldest: o.OldestPendingByTopic,
				oldestOther: &o.OldestPendingByTopicOther, dead: o.DeadByTopic, deadOther: &o.DeadByTopicOther}
			if t == queuebox.TableInbox {
				p = overviewPart{counts: o.Inbox, discarded: &o.InboxDiscarded, oldest: o.OldestPendingBySource,
					oldestOther: &o.OldestPendingBySourceOther, dead: o.DeadBySource, deadOther: &o.DeadBySourceOther}
			}
			if err := w.overviewTable(ctx, conn, t, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return o, fmt.Errorf("read the workbench overview: %w", err)
	}
	return o, nil
}

// overviewPart is where the counts of one table go.
type overviewPart struct {
	counts                 map[queuebox.State]int64
	discarded              *int64
	oldest                 map[string]time.Duration
	dead                   map[string]int64
	oldestOther, deadOther *queuebox.OverviewOther
}

func (w *Workbench) overviewTable(ctx context.Context, conn *pgxpool.Conn, t queuebox.Table, p overviewPart) error {
	f := queuebox.MessageFilter{Table: t}
	stmt, err := w.stmt("wb_overview_states", f, false)
	if err != nil {
		return err
	}
	rows, _ := conn.Query(ctx, stmt)
	var state queuebox.State
	var isDiscarded bool
	var n int64
	if _, err := pgx.ForEachRow(rows, []any{&state, &isDiscarded, &n}, func() error {
		if isDiscarded {
			*p.discarded += n
		} else {
			p.counts[state] += n
		}
		return nil
	}); err != nil {
		return err
	}
	// The statements answer the top names, then one row named NULL that
	// sums the rest.
	var name *string
	var age, names int64
	if stmt, err = w.stmt("wb_overview_oldest", f, false); err != nil {
		return err
	}
	rows, _ = conn.Query(ctx, stmt)
	if _, err := pgx.ForEachRow(rows, []any{&name, &age, &n, &names}, func() error {
		if name == nil {
			*p.oldestOther = queuebox.OverviewOther{Names: names, Rows: n, OldestPending: time.Duration(age) * time.Millisecond}
		} else {
			p.oldest[*name] = time.Duration(age) * time.Millisecond
		}
		return nil
	}); err != nil {
		return err
	}
	if stmt, err = w.stmt("wb_overview_dead", f, false); err != nil {
		return err
	}
	rows, _ = conn.Query(ctx, stmt)
	_, err = pgx.ForEachRow(rows, []any{&name, &n, &names}, func() error {
		if name == nil {
			*p.deadOther = queuebox.OverviewOther{Names: names, Rows: n}
		} else {
			p.dead[*name] = n
		}
		return nil
	})
	return err
}
