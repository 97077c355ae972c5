package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
)

// renderPartitioned replaces the insert statements with the ones of a
// partitioned inbox, which keep the idempotency key unique without a
// unique index.
func (in *Inbox) renderPartitioned(l schema.Layout) error {
	for dst, name := range map[*string]string{
		&in.insert: "inbox_insert_partitioned", &in.batch: "inbox_insert_batch_partitioned",
		&in.lock: "inbox_key_lock", &in.lockBatch: "inbox_key_lock_batch",
	} {
		text, err := render(name, l)
		if err != nil {
			return err
		}
		*dst = text
	}
	return nil
}

// insertLocked takes the key's lock and inserts, as two statements of one
// implicit transaction: pgx sends a batch in one round trip and the
// server runs it as one transaction, which ends, and releases the lock,
// after the insert. The insert's own statement snapshot is taken after
// the lock is granted, so it sees a row that the previous holder
// committed.
func (in *Inbox) insertLocked(ctx context.Context, conn *pgxpool.Conn, row queuebox.ReceivedRow, args []any, id *string) error {
	b := &pgx.Batch{}
	b.Queue(in.lock, row.Source, row.IdempotencyKey)
	b.Queue(in.insert, args...)
	br := conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close() //nolint:errcheck // the first error is the one to report
		return err
	}
	err := br.QueryRow().Scan(id)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// batchLocked is insertLocked for a batch: the locks of every key of the
// batch, then the batch insert, in one implicit transaction.
func (in *Inbox) batchLocked(ctx context.Context, conn *pgxpool.Conn, rows []queuebox.ReceivedRow, cols []any) ([]string, error) {
	sources, keys := make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		sources[i], keys[i] = r.Source, r.IdempotencyKey
	}
	b := &pgx.Batch{}
	b.Queue(in.lockBatch, sources, keys)
	b.Queue(in.batch, cols...)
	br := conn.SendBatch(ctx, b)
	defer br.Close() //nolint:errcheck // errors come from the results read below
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	out, err := br.Query()
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(out, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	return ids, br.Close()
}
