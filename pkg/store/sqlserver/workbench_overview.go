package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Overview implements queuebox.WorkbenchStore: three grouped reads per
// table on one connection.
func (w *Workbench) Overview(ctx context.Context) (queuebox.Overview, error) {
	o := queuebox.Overview{Outbox: map[queuebox.State]int64{}, Inbox: map[queuebox.State]int64{},
		OldestPendingByTopic: map[string]time.Duration{}, OldestPendingBySource: map[string]time.Duration{},
		DeadByTopic: map[string]int64{}, DeadBySource: map[string]int64{}}
	err := w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		for _, t := range []queuebox.Table{queuebox.TableOutbox, queuebox.TableInbox} {
			part := overviewPart{counts: o.Outbox, discarded: &o.OutboxDiscarded, oldest: o.OldestPendingByTopic,
				oldestOther: &o.OldestPendingByTopicOther, dead: o.DeadByTopic, deadOther: &o.DeadByTopicOther}
			if t == queuebox.TableInbox {
				part = overviewPart{counts: o.Inbox, discarded: &o.InboxDiscarded, oldest: o.OldestPendingBySource,
					oldestOther: &o.OldestPendingBySourceOther, dead: o.DeadBySource, deadOther: &o.DeadBySourceOther}
			}
			if err := w.overviewTable(ctx, conn, t, part); err != nil {
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

func (w *Workbench) overviewTable(ctx context.Context, conn *sql.Conn, t queuebox.Table, p overviewPart) error {
	f := queuebox.MessageFilter{Table: t}
	each := func(name string, dst []any, fn func()) error {
		stmt, err := w.stmt(name, f, false)
		if err != nil {
			return err
		}
		rows, err := conn.QueryContext(ctx, stmt)
		if err != nil {
			return err
		}
		_, err = collect(rows, func(r *sql.Rows) (struct{}, error) {
			if err := r.Scan(dst...); err != nil {
				return struct{}{}, err
			}
			fn()
			return struct{}{}, nil
		})
		return err
	}
	var state queuebox.State
	var isDiscarded bool
	var name sql.NullString
	var n, age, names int64
	if err := each("wb_overview_states", []any{&state, &isDiscarded, &n}, func() {
		if isDiscarded {
			*p.discarded += n
		} else {
			p.counts[state] += n
		}
	}); err != nil {
		return err
	}
	// The statements answer the top names, then one row named NULL that
	// sums the rest.
	if err := each("wb_overview_oldest", []any{&name, &age, &n, &names}, func() {
		if !name.Valid {
			*p.oldestOther = queuebox.OverviewOther{Names: names, Rows: n, OldestPending: time.Duration(age) * time.Millisecond}
			return
		}
		p.oldest[name.String] = time.Duration(age) * time.Millisecond
	}); err != nil {
		return err
	}
	return each("wb_overview_dead", []any{&name, &n, &names}, func() {
		if !name.Valid {
			*p.deadOther = queuebox.OverviewOther{Names: names, Rows: n}
			return
		}
		p.dead[name.String] = n
	})
}
