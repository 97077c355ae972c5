package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/wbsql"
)

var outboxOnly = queuebox.MessageFilter{Table: queuebox.TableOutbox}

// DestinationActivity implements queuebox.DeliveryReader: the pending
// rows per topic and destination, then, with the ledger's table, its
// attempts per destination and minute.
func (w *Workbench) DestinationActivity(ctx context.Context, window, recent time.Duration) (queuebox.Activity, error) {
	var out queuebox.Activity
	pending, err := w.stmt("wb_destination_pending", outboxOnly, false)
	if err != nil {
		return out, err
	}
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, pending)
		if err != nil {
			return err
		}
		out.Pending, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (queuebox.PendingStat, error) {
			var p queuebox.PendingStat
			var ms int64
			err := r.Scan(&p.Topic, &p.Destination, &p.Rows, &ms)
			p.Oldest = time.Duration(ms) * time.Millisecond
			return p, err
		})
		if err != nil || w.layout.Ledger.Table == "" {
			return err
		}
		minutes, err := w.stmt("wb_destination_minutes", outboxOnly, false)
		if err != nil {
			return err
		}
		rows, err = conn.Query(ctx, minutes, pgx.NamedArgs{"window_ms": window.Milliseconds(), "recent_ms": recent.Milliseconds()})
		if err != nil {
			return err
		}
		out.Minutes, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (queuebox.MinuteCount, error) {
			var m queuebox.MinuteCount
			err := r.Scan(&m.Destination, &m.Minute, &m.Sent, &m.Failed, &m.RecentSent, &m.RecentFailed)
			m.Minute = m.Minute.UTC()
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
	list, err := w.stmt("wb_undelivered", outboxOnly, !after.IsZero())
	if err != nil {
		return page, err
	}
	counts, err := w.stmt("wb_undelivered_counts", outboxOnly, false)
	if err != nil {
		return page, err
	}
	args := pgx.NamedArgs{"since": f.Since, "destination": f.Destination, "limit": limit,
		"cursor_sequence": after.Sequence, "cursor_id": wbsql.OutboxCursorID(after)}
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, list, args)
		if err != nil {
			return err
		}
		if page.Items, err = pgx.CollectRows(rows, scanUndelivered); err != nil {
			return err
		}
		rows, err = conn.Query(ctx, counts, pgx.NamedArgs{"since": f.Since, "destination": f.Destination})
		if err != nil {
			return err
		}
		page.Counts, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (queuebox.UndeliveredCount, error) {
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

func scanUndelivered(r pgx.CollectableRow) (queuebox.Undelivered, error) {
	u := queuebox.Undelivered{Message: queuebox.Message{Table: queuebox.TableOutbox}}
	var outcome, class string
	dst := append(wbsql.MessageDest(&u.Message, false, nil, nil), &outcome, &class, &u.Status, &u.LastAttempt)
	if err := r.Scan(dst...); err != nil {
		return u, err
	}
	wbsql.FinishMessage(&u.Message, false, "", "")
	u.LastOutcome, u.Class = queuebox.AttemptOutcome(outcome), queuebox.AttemptClass(class)
	return u, nil
}
