package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Attempts implements queuebox.LedgerReader: one statement over the
// ledger's row index. A database without the ledger's table has none.
func (w *Workbench) Attempts(ctx context.Context, ids []string, limit int) ([]queuebox.Attempt, error) {
	if w.layout.Ledger.Table == "" || len(ids) == 0 || limit <= 0 {
		return nil, nil
	}
	stmt, err := w.stmt("wb_attempts", queuebox.MessageFilter{Table: queuebox.TableOutbox}, false)
	if err != nil {
		return nil, err
	}
	var out []queuebox.Attempt
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, stmt, ids, limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, scanAttempt)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list the attempts of outbox rows: %w", err)
	}
	return out, nil
}

func scanAttempt(r pgx.CollectableRow) (queuebox.Attempt, error) {
	var a queuebox.Attempt
	var ms int64
	var outcome, class string
	err := r.Scan(&a.ID, &a.OutboxID, &a.MessageID, &a.Destination, &a.Number, &a.StartedAt, &ms, &outcome,
		&class, &a.Status, &a.Answer, &a.RecordedAt)
	a.Duration, a.Outcome, a.Class = time.Duration(ms)*time.Millisecond, queuebox.AttemptOutcome(outcome), queuebox.AttemptClass(class)
	return a, err
}
