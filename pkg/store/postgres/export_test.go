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

// PartitionsMaintainAt is PartitionsMaintain as if the database clock
// read now.
func (s *Stores) PartitionsMaintainAt(ctx context.Context, table queuebox.Table, now time.Time) ([]string, bool, error) {
	return s.DB.maintainPartitions(ctx, s.tableOf(table), s.Partitioning, now)
}

// AttachDay creates the partition of table for the day that starts at
// from, as the maintenance does for a future day.
func (db *DB) AttachDay(ctx context.Context, l schema.Layout, table queuebox.Table, from time.Time) error {
	t := partitionedTables(l)[0]
	if table == queuebox.TableInbox {
		t = partitionedTables(l)[1]
	}
	_, _, err := db.attachPartition(ctx, t, t.raw+"_default", from, from.Add(24*time.Hour))
	return err
}

// Render renders the statement of queries/<name>.sql against the layout,
// as the stores do.
func Render(name string, l schema.Layout) (string, error) { return render(name, l) }
