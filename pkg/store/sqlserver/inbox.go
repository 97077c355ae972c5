package sqlserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
)

// Inbox is the receipt side of the inbox table: one insert per received
// message. It is safe for concurrent use.
type Inbox struct {
	db                           *DB
	insert, find, batch, findIDs string
}

// NewInbox renders the inbox statements for the layout once.
func NewInbox(db *DB, l schema.Layout) (*Inbox, error) {
	in := &Inbox{db: db}
	err := renderAll(l, map[*string]string{&in.insert: "inbox_insert", &in.find: "inbox_find",
		&in.batch: "inbox_insert_batch", &in.findIDs: "inbox_find_ids"})
	return in, err
}

var _ queuebox.InboxBatchStore = (*Inbox)(nil)

// Insert stores row unless the source already holds its idempotency key.
// It returns the id of the new row and inserted=true, or inserted=false
// with an empty id for a duplicate: the guarded insert found the key, or
// the unique constraint refused a concurrent one. A value SQL Server
// refuses fails with a *queuebox.RefusedValueError. An insert that lost a
// deadlock is tried again; if that try finds the key taken by a row
// under the message's own id, the message is stored, not a duplicate.
func (in *Inbox) Insert(ctx context.Context, row queuebox.ReceivedRow) (id string, inserted bool, err error) {
	args := rowcodec.InsertArgs(row)
	err = in.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, in.insert, args...).Scan(&id)
	})
	switch {
	case (errors.Is(err, errNotFound) || errors.Is(err, errDuplicate)) && row.ID != "":
		return in.own(ctx, row)
	case errors.Is(err, errNotFound) || errors.Is(err, errDuplicate):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("insert inbox row of source %s: %w", row.Source, err)
	}
	return id, true, nil
}

// own reports whether the stored row of row's idempotency key carries
// row.ID: then the message is stored, and not a duplicate.
func (in *Inbox) own(ctx context.Context, row queuebox.ReceivedRow) (id string, inserted bool, err error) {
	var stored string
	err = in.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, in.find, row.Source, row.IdempotencyKey).Scan(&stored)
	})
	switch {
	case errors.Is(err, errNotFound):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("find the inbox row of source %s: %w", row.Source, err)
	case stored == row.ID:
		return stored, true, nil
	}
	return "", false, nil
}
