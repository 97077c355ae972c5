package ingest

import (
	"context"
	"fmt"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// ReceiveBatch receives the messages of one fetched group (a RabbitMQ
// prefetch window, a JetStream fetch, a Kafka poll) and returns one
// Decision per message, in the order of msgs.
//
// The rows of the group enter the inbox in the order of msgs, in one
// statement and one commit when the store stores batches
// (queuebox.InboxBatchStore), so the order of a queue, stream or
// partition is the order of its rows. A message that cannot be stored
// for good (rejected, or dead in dead-letter mode) is decided alone and
// never fails its neighbours: a value the database refuses fails only
// its own row.
//
// A non-nil error means the store of the group failed and nothing was
// decided: the transport must have the whole group sent again (a nak of
// every message, or an uncommitted offset). Rows of the group that did
// commit before the failure are then found as duplicates, so the repeat
// stores nothing twice. Cancelling ctx stops the group's store.
// ReceiveBatch is safe for concurrent use.
func (r *Receiver) ReceiveBatch(ctx context.Context, msgs []Message) ([]Decision, error) {
	decisions := make([]Decision, len(msgs))
	var (
		waiting []*pending
		at      []int // the place in msgs of each waiting message
	)
	mctx := make([]context.Context, len(msgs))
	for i, m := range msgs {
		mctx[i] = messageContext(ctx, m)
		p, d, err := r.prepare(mctx[i], m)
		switch {
		case err != nil:
			return nil, err
		case p == nil:
			decisions[i] = d
			continue
		}
		waiting, at = append(waiting, p), append(at, i)
	}
	rows := make([]queuebox.ReceivedRow, len(waiting))
	for j, p := range waiting {
		rows[j] = p.row
	}
	results, err := insertBatch(ctx, r.inbox, rows)
	if err != nil {
		r.metrics.rejected(ReasonStorageFailed)
		r.log.ErrorContext(ctx, "inbox write of a group failed", "messages", len(msgs), "err", err)
		return nil, fmt.Errorf("store the inbox rows of a group: %w", err)
	}
	for j, p := range waiting {
		res := results[j]
		d, err := r.settle(mctx[at[j]], p, res.ID, res.Inserted, res.Err)
		if err != nil {
			return nil, err
		}
		decisions[at[j]] = d
	}
	return decisions, nil
}

// insertBatch stores rows through the batch insert of store, or, for a
// store without one, through Insert one row after another with the same
// answers.
func insertBatch(ctx context.Context, store Store, rows []queuebox.ReceivedRow) ([]queuebox.InsertResult, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	if b, ok := store.(queuebox.InboxBatchStore); ok {
		return b.InsertBatch(ctx, rows)
	}
	return queuebox.InsertEach(ctx, store, rows)
}

// messageContext is ctx whose values are, first, those of m.LogContext,
// so that the lines logged about m carry its own trace; ctx when m has
// none.
func messageContext(ctx context.Context, m Message) context.Context {
	if m.LogContext == nil {
		return ctx
	}
	return valuesFirst{Context: ctx, first: m.LogContext}
}

// valuesFirst is a context with the deadline and cancellation of its
// Context and the values of first before those of Context.
type valuesFirst struct {
	context.Context
	first context.Context
}

// Value implements context.Context.
func (c valuesFirst) Value(key any) any {
	if v := c.first.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}
