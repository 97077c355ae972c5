package postgres

import (
	"context"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
)

// Retention deletes final rows in batches. It is safe for concurrent use.
type Retention struct {
	db                               *DB
	outboxAge, outboxCount, inboxAge string
	// ledgerAge deletes from the delivery ledger; empty when the
	// database has no ledger table.
	ledgerAge string
	// layout and partitioned serve the partition drops
	// (partition_drop.go).
	layout      schema.Layout
	partitioned bool
}

// NewRetention renders the cleanup statements.
func NewRetention(db *DB, l schema.Layout) (*Retention, error) {
	r := &Retention{db: db, layout: l, partitioned: l.Partitioned}
	err := renderAll(l, map[*string]string{
		&r.outboxAge: "retention_outbox_age", &r.outboxCount: "retention_outbox_count", &r.inboxAge: "retention_inbox_age",
	})
	if err == nil && l.Ledger.Table != "" {
		err = renderAll(l, map[*string]string{&r.ledgerAge: "retention_ledger_age"})
	}
	return r, err
}

// OutboxByAge deletes up to batch sent or dead rows older than maxAge.
func (r *Retention) OutboxByAge(ctx context.Context, maxAge time.Duration, batch int) (int64, error) {
	return r.db.execCount(ctx, repeatable, "delete old outbox rows", r.outboxAge, maxAge.Milliseconds(), batch)
}

// OutboxByCount deletes up to batch rows of state beyond the newest keep.
func (r *Retention) OutboxByCount(ctx context.Context, state queuebox.State, keep, batch int) (int64, error) {
	return r.db.execCount(ctx, repeatable, "delete outbox rows over the count", r.outboxCount, string(state), keep, batch)
}

// InboxByAge deletes up to batch processed or dead rows older than maxAge.
func (r *Retention) InboxByAge(ctx context.Context, maxAge time.Duration, batch int) (int64, error) {
	return r.db.execCount(ctx, repeatable, "delete old inbox rows", r.inboxAge, maxAge.Milliseconds(), batch)
}

// LedgerByAge deletes up to batch ledger rows that started more than
// maxAge ago; without the ledger's table it deletes nothing.
func (r *Retention) LedgerByAge(ctx context.Context, maxAge time.Duration, batch int) (int64, error) {
	if r.ledgerAge == "" {
		return 0, nil
	}
	return r.db.execCount(ctx, repeatable, "delete old delivery ledger rows", r.ledgerAge, maxAge.Milliseconds(), batch)
}
