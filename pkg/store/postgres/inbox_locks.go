package postgres

import (
	"context"
	"slices"

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

// locks returns a batch that holds the locks rows need before their
// insert, in the order every insert takes them: the locks of their
// aggregates (inbox_aggregate_lock.sql), then, on a partitioned inbox,
// the locks of their keys (inbox_key_lock.sql; single, the statement of
// one row). It returns nil when rows need none: rows without an aggregate
// in an inbox that is not partitioned.
func (in *Inbox) locks(rows []queuebox.ReceivedRow, single bool) *pgx.Batch {
	keyed := slices.ContainsFunc(rows, func(r queuebox.ReceivedRow) bool { return r.AggregateID != nil })
	if !keyed && in.lock == "" {
		// The common insert pays for no batch.
		return nil
	}
	b := &pgx.Batch{}
	if keyed {
		aggregates := make([]*string, len(rows))
		for i, r := range rows {
			aggregates[i] = r.AggregateID
		}
		b.Queue(in.lockAggregates, aggregates)
	}
	switch {
	case in.lock == "":
	case single:
		b.Queue(in.lock, rows[0].Source, rows[0].IdempotencyKey)
	default:
		sources, keys := make([]string, len(rows)), make([]string, len(rows))
		for i, r := range rows {
			sources[i], keys[i] = r.Source, r.IdempotencyKey
		}
		b.Queue(in.lockBatch, sources, keys)
	}
	return b
}

// insertAfterLocks runs the statements of b, the locks first and the
// insert last, as one implicit transaction: pgx sends a batch in one
// round trip and the server runs it as one transaction, which ends, and
// releases the locks, after the insert. The insert's own statement
// snapshot is taken after the locks are granted, so it sees a row that
// the previous holder committed, and its created_at comes after them. It
// returns the ids the insert returned.
func insertAfterLocks(ctx context.Context, conn *pgxpool.Conn, b *pgx.Batch) ([]string, error) {
	br := conn.SendBatch(ctx, b)
	defer br.Close() //nolint:errcheck // errors come from the results read below
	for range b.Len() - 1 {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
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
