package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Pauses implements queuebox.WorkbenchStore.
func (w *Workbench) Pauses(ctx context.Context) ([]queuebox.DestinationPause, error) {
	stmt, err := w.stmt("wb_pauses", queuebox.MessageFilter{Table: queuebox.TableOutbox}, false)
	if err != nil {
		return nil, err
	}
	var out []queuebox.DestinationPause
	err = w.db.WithConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, stmt)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (queuebox.DestinationPause, error) {
			var p queuebox.DestinationPause
			err := r.Scan(&p.Destination, &p.Replica, &p.Reason, &p.Detail, &p.Until, &p.RecordedAt)
			return p, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list destination pauses: %w", err)
	}
	return out, nil
}
