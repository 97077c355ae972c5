package sqlserver

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"

	capsql "github.com/alternayte/queuebox/pkg/capture/sqlserver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	wakesql "github.com/alternayte/queuebox/pkg/wake/sqlserver"
)

var _ queuebox.WakeSource = (*wakesql.Poller)(nil)

// WakeSource implements queuebox.Stores: SQL Server has no LISTEN, so
// every deliver replica polls the wake row that capture sqlserver-cdc
// bumps after new inserts, by its primary key, on the pool of the set
// (pkg/wake/sqlserver), every Stores.WakePoll.
func (s *Stores) WakeSource(wakeUp func(), log *slog.Logger) (queuebox.WakeSource, bool) {
	return wakesql.NewPoller(wakesql.PollerOptions{DB: rowDB{s.DB}, Wake: wakeUp, Logger: log, Every: s.WakePoll}), true
}

// rowDB adapts the pool to the small DB interfaces of the capture
// connector's statements and of the wake row's reader.
type rowDB struct{ db *DB }

// QueryRow implements capsql.DB and wakesql.DB; an empty answer is
// capsql.ErrNoRows, which is wakesql.ErrNoRows.
func (r rowDB) QueryRow(ctx context.Context, query string, args []any, dest ...any) error {
	err := r.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, query, args...).Scan(dest...)
	})
	if errors.Is(err, errNotFound) {
		return capsql.ErrNoRows
	}
	return err
}

// Exec implements capsql.DB.
func (r rowDB) Exec(ctx context.Context, query string, args ...any) error {
	return r.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		_, err := conn.ExecContext(ctx, query, args...)
		return err
	})
}

var _ capsql.Database = (*Stores)(nil)

// CaptureDB implements capsql.Database: capture's statements run on the
// pool of the set, with its acquire timeout and retries.
func (s *Stores) CaptureDB() capsql.DB { return rowDB{s.DB} }

// CapturePool implements capsql.Database.
func (s *Stores) CapturePool() *sql.DB { return s.DB.SQL }
