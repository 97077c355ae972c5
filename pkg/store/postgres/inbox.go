package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
)

// Inbox is the receipt side of the inbox table: one insert per received
// message. It is safe for concurrent use.
type Inbox struct {
	db                           *DB
	insert, find, batch, findIDs string
	// lockAggregates takes the locks of the rows' aggregates before every
	// insert of a row with one (inbox_aggregate_lock.sql).
	lockAggregates string
	// lock and lockBatch are set on a partitioned inbox: the statements
	// that take the key locks before insert and batch (see
	// inbox_key_lock.sql).
	lock, lockBatch string
}

// NewInbox renders the inbox statements for the layout once.
func NewInbox(db *DB, l schema.Layout) (*Inbox, error) {
	in := &Inbox{db: db}
	err := renderAll(l, map[*string]string{&in.insert: "inbox_insert", &in.find: "inbox_find",
		&in.batch: "inbox_insert_batch", &in.findIDs: "inbox_find_ids", &in.lockAggregates: "inbox_aggregate_lock"})
	if err == nil && l.Partitioned {
		err = in.renderPartitioned(l)
	}
	return in, err
}

var _ queuebox.InboxBatchStore = (*Inbox)(nil)

// Insert stores row unless the source already holds its idempotency key.
// It returns the id of the new row and inserted=true, or inserted=false
// with an empty id for a duplicate. The decision is the unique constraint
// on (source, idempotency_key) alone, so two concurrent inserts of one key
// store exactly one row; on a partitioned inbox, the key's lock and a
// look-up across the partitions take its place (inbox_key_lock.sql). A
// row with an aggregate is stored under the aggregate's lock, so the rows
// of one aggregate commit in created_at order (inbox_aggregate_lock.sql).
// A value the database refuses (a data exception) fails with a
// *queuebox.RefusedValueError, which no retry cures. An idle connection
// that the server ended is replaced and the insert tried again; when ctx
// ends first, the insert is cancelled and its fate is unknown (it may
// have committed). Insert is safe for concurrent use.
func (in *Inbox) Insert(ctx context.Context, row queuebox.ReceivedRow) (id string, inserted bool, err error) {
	args := rowcodec.InsertArgs(row)
	retried, err := in.db.withLiveConn(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		b := in.locks([]queuebox.ReceivedRow{row}, true)
		if b == nil {
			return conn.QueryRow(ctx, in.insert, args...).Scan(&id)
		}
		b.Queue(in.insert, args...)
		ids, err := insertAfterLocks(ctx, conn, b)
		if err == nil && len(ids) == 0 {
			err = errNotFound
		}
		if err == nil {
			id = ids[0]
		}
		return err
	})
	switch {
	case errors.Is(err, errNotFound) && retried && row.ID != "":
		// The try whose connection broke may have committed: a row under
		// this message's own id is this message, not a duplicate.
		return in.own(ctx, row)
	case errors.Is(err, errNotFound):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("insert inbox row of source %s: %w", row.Source, err)
	}
	return id, true, nil
}

// own reports whether the stored row of row's idempotency key carries
// row.ID, as Insert does: then the message is stored, and not a duplicate.
func (in *Inbox) own(ctx context.Context, row queuebox.ReceivedRow) (id string, inserted bool, err error) {
	var stored string
	err = in.db.on(ctx, repeatable, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, in.find, row.Source, row.IdempotencyKey).Scan(&stored)
	})
	switch {
	case err != nil:
		return "", false, fmt.Errorf("find the inbox row of source %s: %w", row.Source, err)
	case stored == row.ID:
		return stored, true, nil
	}
	return "", false, nil
}
