package sqlserver

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Pauses implements queuebox.WorkbenchStore.
func (w *Workbench) Pauses(ctx context.Context) ([]queuebox.DestinationPause, error) {
	stmt, err := w.stmt("wb_pauses", jobFilter, false)
	if err != nil {
		return nil, err
	}
	var out []queuebox.DestinationPause
	err = w.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, stmt)
		if err != nil {
			return err
		}
		out, err = collect(rows, func(r *sql.Rows) (queuebox.DestinationPause, error) {
			var p queuebox.DestinationPause
			err := r.Scan(&p.Destination, &p.Replica, &p.Reason, &p.Detail, &p.Until, &p.RecordedAt)
			// DATETIME2 has no zone; every one holds UTC.
			p.Until, p.RecordedAt = p.Until.UTC(), p.RecordedAt.UTC()
			return p, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list destination pauses: %w", err)
	}
	return out, nil
}
