package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
)

// Own exposes the lookup that Insert runs after a retried try.
func (in *Inbox) Own(ctx context.Context, row queuebox.ReceivedRow) (string, bool, error) {
	return in.own(ctx, row)
}

// RenderClaim renders a claim statement (outbox_claim or
// inbox_relay_claim) as the stores do.
func RenderClaim(name string, l schema.Layout, keyedFirst bool) (string, error) {
	return render(name, claimData{l, keyedFirst})
}

// OwnIDs exposes the lookup that InsertBatch runs after a retried try.
func (in *Inbox) OwnIDs(ctx context.Context, rows []queuebox.ReceivedRow) (map[string]bool, error) {
	return in.ownIDs(ctx, rows)
}

// EnsurePartitionsAt runs the partition maintenance as if the database
// clock read now.
func (db *DB) EnsurePartitionsAt(ctx context.Context, l schema.Layout, p Partitioning, now time.Time) ([]string, error) {
	return db.ensurePartitions(ctx, l, p, now, slog.New(slog.DiscardHandler))
}
