package sqlserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/wbsql"
)

// Workbench is the SQL Server store of the operator's workbench (see
// queuebox.WorkbenchStore), the twin of the PostgreSQL store's: the same
// statements by name in queries/wb_*.sql, rendered per filter shape. It
// is safe for concurrent use; it holds no connection of its own.
type Workbench struct {
	db     *DB
	layout schema.Layout
	stmts  *wbsql.Cache
}

var _ queuebox.WorkbenchStore = (*Workbench)(nil)

// wbStatements are the statements rendered at construction for each
// table, so a broken template fails the start.
var wbStatements = []string{"wb_resend", "wb_discard", "wb_count", "wb_move", "wb_job_step",
	"wb_overview_states", "wb_overview_oldest", "wb_overview_dead", "wb_job_create", "wb_job_claim",
	"wb_job_fail", "wb_job_get", "wb_job_list", "wb_state", "wb_topics", "wb_pauses", "wb_attempts",
	"wb_undelivered", "wb_undelivered_counts", "wb_destination_pending", "wb_destination_minutes"}

// NewWorkbench returns the workbench store of layout l; it renders each
// statement on first use per filter shape.
func NewWorkbench(db *DB, l schema.Layout) (*Workbench, error) {
	w := &Workbench{db: db, layout: l, stmts: wbsql.NewCache(render)}
	for _, t := range []queuebox.Table{queuebox.TableOutbox, queuebox.TableInbox} {
		d, err := wbsql.NewData(l, queuebox.MessageFilter{Table: t})
		if err != nil {
			return nil, err
		}
		for _, name := range append([]string{"wb_list_" + string(t), "wb_get_" + string(t)}, wbStatements...) {
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

// filterArgs binds the values of the conditions of f that wb_filter
// renders, under the names it uses: the lists as JSON arrays, the
// bounds in UTC (the zone of every DATETIME2 column).
func filterArgs(f queuebox.MessageFilter) []any {
	var args []any
	list := func(name string, v []string) {
		b, _ := json.Marshal(v) // a string slice always encodes
		args = append(args, sql.Named(name, string(b)))
	}
	if f.IDs != nil {
		list("ids", f.IDs)
	}
	if f.Topics != nil && f.Table == queuebox.TableOutbox {
		list("topics", f.Topics)
	}
	if f.Source != "" && f.Table == queuebox.TableInbox {
		args = append(args, sql.Named("source", f.Source))
	}
	if f.Key != "" {
		args = append(args, sql.Named("key", f.Key))
	}
	if f.Destination != "" && f.Table == queuebox.TableOutbox {
		args = append(args, sql.Named("destination", f.Destination))
		if len(f.UnroutedTopics) > 0 {
			list("unrouted_topics", f.UnroutedTopics)
		}
	}
	if f.Message != "" && f.Table == queuebox.TableOutbox {
		args = append(args, sql.Named("message", f.Message))
	}
	if f.Error != "" {
		args = append(args, sql.Named("error", f.Error))
	}
	if f.CreatedAfter != nil {
		args = append(args, sql.Named("created_after", f.CreatedAfter.UTC()))
	}
	if f.CreatedBefore != nil {
		args = append(args, sql.Named("created_before", f.CreatedBefore.UTC()))
	}
	return args
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
	args := append(filterArgs(f), sql.Named("limit", int64(max(limit, 0))))
	if !after.IsZero() {
		if f.Table == queuebox.TableInbox {
			args = append(args, sql.Named("cursor_created_at", after.CreatedAt.UTC()), sql.Named("cursor_id", after.ID))
		} else {
			args = append(args, sql.Named("cursor_sequence", after.Sequence), sql.Named("cursor_id", wbsql.OutboxCursorID(after)))
		}
	}
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, stmt, args...)
		if err != nil {
			return err
		}
		page.Items, err = collect(rows, func(r *sql.Rows) (queuebox.Message, error) { return scanListed(f.Table, r, false) })
		return err
	})
	if err != nil {
		return page, fmt.Errorf("list %s rows: %w", f.Table, err)
	}
	page.Next = wbsql.NextCursor(f.Table, page.Items, limit)
	return page, nil
}

// scanListed scans the columns of wb_list_* and, when whole, the extra
// columns of wb_get_*. Times come back in UTC.
func scanListed(t queuebox.Table, r *sql.Rows, whole bool) (queuebox.Message, error) {
	m := queuebox.Message{Table: t}
	var payload, headers string
	if err := r.Scan(wbsql.MessageDest(&m, whole, &payload, &headers)...); err != nil {
		return m, err
	}
	m.CreatedAt, m.ScheduledAt, m.UpdatedAt = m.CreatedAt.UTC(), m.ScheduledAt.UTC(), m.UpdatedAt.UTC()
	for _, p := range []*time.Time{m.DiscardedAt, m.ClaimedAt, m.LeaseExpiry, m.ProcessedAt} {
		if p != nil {
			*p = p.UTC()
		}
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
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, stmt, sql.Named("id", id))
		if err != nil {
			return err
		}
		all, err := collect(rows, func(r *sql.Rows) (queuebox.Message, error) { return scanListed(t, r, true) })
		if err != nil {
			return err
		}
		if len(all) == 0 {
			return sql.ErrNoRows
		}
		m = all[0]
		return nil
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
	if !wbsql.CanMatch(f) {
		return nil, nil
	}
	stmt, err := w.stmt("wb_topics", f, false)
	if err != nil {
		return nil, err
	}
	out, err := w.db.strings(ctx, stmt, filterArgs(f)...)
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
	args := []any{sql.Named("id", id)}
	if t == queuebox.TableOutbox {
		args = append(args, sql.Named("payload", textOrNil(edit.Payload)), sql.Named("headers", textOrNil(edit.Headers)))
	}
	var oldText, newText string
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, stmt, args...).Scan(&oldText, &newText)
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
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, stmt, sql.Named("id", id)).Scan(&state)
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
	n, err := w.db.execCount(ctx, "discard "+string(t)+" row", stmt, sql.Named("id", id))
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
	if err := noBackfill(f); err != nil {
		return 0, err
	}
	if !wbsql.CanMatch(f) {
		return 0, nil
	}
	stmt, err := w.stmt("wb_count", f, false)
	if err != nil {
		return 0, err
	}
	args := append(filterArgs(f), sql.Named("limit", limitArg(limit)))
	var n int64
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, stmt, args...).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("count %s rows: %w", f.Table, err)
	}
	return n, nil
}

// Move implements queuebox.WorkbenchStore.
func (w *Workbench) Move(ctx context.Context, f queuebox.MessageFilter, limit int) (int64, error) {
	if err := noBackfill(f); err != nil {
		return 0, err
	}
	f, ok := wbsql.FinalOnly(f)
	if !ok || !wbsql.CanMatch(f) {
		return 0, nil
	}
	stmt, err := w.stmt("wb_move", f, false)
	if err != nil {
		return 0, err
	}
	args := append(filterArgs(f), sql.Named("limit", limitArg(limit)))
	return w.db.execCount(ctx, "replay "+string(f.Table)+" rows", stmt, args...)
}

// errNoBackfill is the answer to a backfill (queuebox.MessageFilter.Backfill):
// the T-SQL twin of the statement that adds the missing deliveries is not
// written yet, so this store refuses the selection rather than reading it
// as a plain destination filter. A replay then moves the destination's
// rows as before and adds nothing; a replay job's AddMissing is ignored.
var errNoBackfill = fmt.Errorf("adding the missing deliveries of a destination is not implemented for SQL Server yet: %w", errors.ErrUnsupported)

func noBackfill(f queuebox.MessageFilter) error {
	if f.Backfill && f.Destination != "" {
		return errNoBackfill
	}
	return nil
}
