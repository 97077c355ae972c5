package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/wbsql"
)

// DestinationActivity implements queuebox.DeliveryReader: the pending
// rows per topic and destination, then, with the ledger's table, its
// attempts per destination and minute.
func (w *Workbench) DestinationActivity(ctx context.Context, window, recent time.Duration) (queuebox.Activity, error) {
	var out queuebox.Activity
	pending, err := w.stmt("wb_destination_pending", jobFilter, false)
	if err != nil {
		return out, err
	}
	minutes, err := w.stmt("wb_destination_minutes", jobFilter, false)
	if err != nil {
		return out, err
	}
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, pending)
		if err != nil {
			return err
		}
		out.Pending, err = collect(rows, func(r *sql.Rows) (queuebox.PendingStat, error) {
			var p queuebox.PendingStat
			var ms int64
			err := r.Scan(&p.Topic, &p.Destination, &p.Rows, &ms)
			p.Oldest = time.Duration(ms) * time.Millisecond
			return p, err
		})
		if err != nil || w.layout.Ledger.Table == "" {
			return err
		}
		rows, err = conn.QueryContext(ctx, minutes, sql.Named("window_ms", window.Milliseconds()),
			sql.Named("recent_ms", recent.Milliseconds()))
		if err != nil {
			return err
		}
		out.Minutes, err = collect(rows, func(r *sql.Rows) (queuebox.MinuteCount, error) {
			var m queuebox.MinuteCount
			err := r.Scan(&m.Destination, &m.Minute, &m.Sent, &m.Failed, &m.RecentSent, &m.RecentFailed)
			m.Minute = m.Minute.UTC() // DATETIME2 has no zone; every one holds UTC.
			return m, err
		})
		return err
	})
	if err != nil {
		return out, fmt.Errorf("read the activity of destinations: %w", err)
	}
	return out, nil
}

// Undelivered implements queuebox.DeliveryReader: one page, then the
// counts of the whole selection, on one connection.
func (w *Workbench) Undelivered(ctx context.Context, f queuebox.UndeliveredFilter, limit int, after queuebox.Cursor) (queuebox.UndeliveredPage, error) {
	var page queuebox.UndeliveredPage
	list, err := w.stmt("wb_undelivered", jobFilter, !after.IsZero())
	if err != nil {
		return page, err
	}
	counts, err := w.stmt("wb_undelivered_counts", jobFilter, false)
	if err != nil {
		return page, err
	}
	shared := []any{sql.Named("since", f.Since.UTC()), sql.Named("destination", f.Destination)}
	args := append(append([]any{}, shared...), sql.Named("limit", int64(max(limit, 0))))
	if !after.IsZero() {
		args = append(args, sql.Named("cursor_sequence", after.Sequence), sql.Named("cursor_id", wbsql.OutboxCursorID(after)))
	}
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, list, args...)
		if err != nil {
			return err
		}
		if page.Items, err = collect(rows, scanUndelivered); err != nil {
			return err
		}
		rows, err = conn.QueryContext(ctx, counts, shared...)
		if err != nil {
			return err
		}
		page.Counts, err = collect(rows, func(r *sql.Rows) (queuebox.UndeliveredCount, error) {
			var c queuebox.UndeliveredCount
			var class string
			err := r.Scan(&c.Destination, &class, &c.Dead, &c.Retrying)
			c.Class = queuebox.AttemptClass(class)
			return c, err
		})
		return err
	})
	if err != nil {
		return page, fmt.Errorf("list undelivered outbox rows: %w", err)
	}
	msgs := make([]queuebox.Message, len(page.Items))
	for i, u := range page.Items {
		msgs[i] = u.Message
	}
	page.Next = wbsql.NextCursor(queuebox.TableOutbox, msgs, limit)
	return page, nil
}

func scanUndelivered(r *sql.Rows) (queuebox.Undelivered, error) {
	u := queuebox.Undelivered{Message: queuebox.Message{Table: queuebox.TableOutbox}}
	var outcome, class string
	m := &u.Message
	if err := r.Scan(append(wbsql.MessageDest(m, false, nil, nil), &outcome, &class, &u.Status, &u.LastAttempt)...); err != nil {
		return u, err
	}
	// DATETIME2 has no zone; every one holds UTC.
	m.CreatedAt, m.ScheduledAt, m.UpdatedAt = m.CreatedAt.UTC(), m.ScheduledAt.UTC(), m.UpdatedAt.UTC()
	for _, p := range []*time.Time{m.DiscardedAt, u.LastAttempt} {
		if p != nil {
			*p = p.UTC()
		}
	}
	wbsql.FinishMessage(m, false, "", "")
	u.LastOutcome, u.Class = queuebox.AttemptOutcome(outcome), queuebox.AttemptClass(class)
	return u, nil
}
