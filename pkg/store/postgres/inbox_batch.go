package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
)

// InsertBatch stores rows in one INSERT and one commit, in the order of
// rows, and tells each row new (with its id) or duplicate; see
// queuebox.InboxBatchStore. A row without an id gets a UUID version 7.
// When the database refuses a value, the statement stored nothing, and
// the rows are stored again one by one through Insert, so that only the
// row that holds the value fails (InsertResult.Err); a row whose own
// insert fails otherwise fails the batch. An idle connection that the
// server ended is replaced and the statement tried again; the rows that
// the broken try may have committed are then found by their own ids. It
// is safe for concurrent use.
func (in *Inbox) InsertBatch(ctx context.Context, rows []queuebox.ReceivedRow) ([]queuebox.InsertResult, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	rows = rowcodec.WithIDs(rows)
	cols := rowcodec.InsertArrays(rows)
	var returned []string
	retried, err := in.db.withLiveConn(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		if b := in.locks(rows, false); b != nil {
			var err error
			b.Queue(in.batch, cols...)
			returned, err = insertAfterLocks(ctx, conn, b)
			return err
		}
		out, err := conn.Query(ctx, in.batch, cols...)
		if err != nil {
			return err
		}
		returned, err = pgx.CollectRows(out, pgx.RowTo[string])
		return err
	})
	var refused *queuebox.RefusedValueError
	switch {
	case errors.As(err, &refused):
		return queuebox.InsertEach(ctx, in, rows)
	case err != nil:
		return nil, fmt.Errorf("insert %d inbox rows: %w", len(rows), err)
	}
	var stored map[string]bool
	if retried && len(returned) < len(rows) {
		// The try whose connection broke may have committed: a row under
		// a message's own id is that message, not a duplicate.
		if stored, err = in.ownIDs(ctx, rows); err != nil {
			return nil, err
		}
	}
	return rowcodec.ResultsByID(rows, returned, stored), nil
}

// ownIDs returns which ids of rows the inbox holds.
func (in *Inbox) ownIDs(ctx context.Context, rows []queuebox.ReceivedRow) (map[string]bool, error) {
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
	}
	found := map[string]bool{}
	err := in.db.on(ctx, repeatable, func(ctx context.Context, conn *pgxpool.Conn) error {
		out, err := conn.Query(ctx, in.findIDs, ids)
		if err != nil {
			return err
		}
		got, err := pgx.CollectRows(out, pgx.RowTo[string])
		for _, id := range got {
			found[id] = true
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find the inbox rows of a retried batch: %w", err)
	}
	return found, nil
}
