package sqlserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
)

// InsertBatch stores rows in one INSERT and one commit, in the order of
// rows, and tells each row new (with its id) or duplicate; see
// queuebox.InboxBatchStore and queries/inbox_insert_batch.sql. A row
// without an id gets one. When the statement fails on a refused value or
// a unique violation, it stored nothing, and the rows are stored again
// one by one through Insert, so that only a refused row fails
// (InsertResult.Err). A row the statement did not report stored is
// looked up by its own id, since a try whose answer was lost may have
// committed it. It is safe for concurrent use.
func (in *Inbox) InsertBatch(ctx context.Context, rows []queuebox.ReceivedRow) ([]queuebox.InsertResult, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	rows = rowcodec.WithIDs(rows)
	doc, err := batchJSON(rows)
	if err != nil {
		return nil, err
	}
	var returned []string
	err = in.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		returned, err = queryIDs(ctx, conn, in.batch, doc)
		return err
	})
	var refused *queuebox.RefusedValueError
	switch {
	case errors.As(err, &refused) || errors.Is(err, errDuplicate):
		return queuebox.InsertEach(ctx, in, rows)
	case err != nil:
		return nil, fmt.Errorf("insert %d inbox rows: %w", len(rows), err)
	}
	var stored map[string]bool
	if len(returned) < len(rows) {
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
	doc, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	var got []string
	err = in.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		got, err = queryIDs(ctx, conn, in.findIDs, string(doc))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find the inbox rows of a batch: %w", err)
	}
	found := make(map[string]bool, len(got))
	for _, id := range got {
		found[id] = true
	}
	return found, nil
}

func queryIDs(ctx context.Context, conn *sql.Conn, stmt, doc string) ([]string, error) {
	out, err := conn.QueryContext(ctx, stmt, doc)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	var ids []string
	for out.Next() {
		var id string
		if err := out.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, out.Err()
}

// batchRow is one row of the JSON array of inbox_insert_batch.sql.
type batchRow struct {
	Ord            int     `json:"ord"`
	ID             string  `json:"id"`
	Source         string  `json:"source"`
	IdempotencyKey string  `json:"idempotency_key"`
	AggregateID    *string `json:"aggregate_id"`
	EventType      *string `json:"event_type"`
	Payload        string  `json:"payload"`
	Headers        string  `json:"headers"`
	CorrelationID  *string `json:"correlation_id"`
	Consumption    string  `json:"consumption"`
	State          string  `json:"state"`
	LastError      *string `json:"last_error"`
}

// batchJSON encodes rows, which all have an id, as the JSON array of the
// batch statement, from the same parameters that Insert binds.
func batchJSON(rows []queuebox.ReceivedRow) (string, error) {
	out := make([]batchRow, len(rows))
	for i, row := range rows {
		c := rowcodec.InsertCells(row)
		out[i] = batchRow{Ord: i, ID: c[0].Text, Source: c[1].Text, IdempotencyKey: c[2].Text,
			AggregateID: c[3].Opt(), EventType: c[4].Opt(), Payload: c[5].Text, Headers: c[6].Text,
			CorrelationID: c[7].Opt(), Consumption: c[8].Text, State: c[9].Text, LastError: c[10].Opt()}
	}
	doc, err := json.Marshal(out)
	return string(doc), err
}
