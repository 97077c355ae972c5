package postgres

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

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

// SettingInClaim returns the value of setting as a statement that
// queryClaim runs sees it, and as the next statement on the same
// connection sees it.
// It also returns the notices the server sent meanwhile (a warning per
// claim would fill the server's log), on a pool of its own that records
// them.
func (db *DB) SettingInClaim(ctx context.Context, setting string) (in, after string, notices []string, err error) {
	cfg, err := pgxpool.ParseConfig(db.connString)
	if err != nil {
		return "", "", nil, err
	}
	var mu sync.Mutex
	cfg.ConnConfig.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		defer mu.Unlock()
		notices = append(notices, n.Severity+": "+n.Message)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return "", "", nil, err
	}
	defer pool.Close()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return "", "", nil, err
	}
	defer conn.Release()
	err = queryClaim(ctx, conn, func(rows pgx.Rows) error {
		in, err = pgx.CollectExactlyOneRow(rows, pgx.RowTo[string])
		return err
	}, "SELECT current_setting($1)", setting)
	if err != nil {
		return "", "", nil, err
	}
	err = conn.QueryRow(ctx, "SELECT current_setting($1)", setting).Scan(&after)
	mu.Lock()
	defer mu.Unlock()
	return in, after, notices, err
}

// AgeStatements returns the row-by-row cleanup statements by age of the
// outbox and the inbox.
func (r *Retention) AgeStatements() (outbox, inbox string) { return r.outboxAge, r.inboxAge }
