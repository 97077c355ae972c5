package sqlserver

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/backoff"
	capsql "github.com/alternayte/queuebox/pkg/capture/sqlserver"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// DefaultWakePoll is how often a deliver replica reads the wake row when
// Stores.WakePoll is zero: one primary key seek, cheap enough to run
// several times per default poll interval of the outbox.
const DefaultWakePoll = 25 * time.Millisecond

// errNoWakeTable is SQL Server's "invalid object name" (208): the wake
// table does not exist until capture sqlserver-cdc first checks the
// database, so a replica that starts before it reads "no wake-up".
const errNoWakeTable = 208

// WakeSource implements queuebox.Stores: SQL Server has no LISTEN, so
// every deliver replica polls the generation row that capture
// sqlserver-cdc bumps after new inserts (pkg/capture/sqlserver), by its
// primary key, on the pool of the set, and wakes the poller when the
// generation moves. The first read counts as a wake-up, as a reconnect
// does for the PostgreSQL listener.
func (s *Stores) WakeSource(wakeUp func(), log *slog.Logger) (queuebox.WakeSource, bool) {
	every := s.WakePoll
	if every <= 0 {
		every = DefaultWakePoll
	}
	reader, err := capsql.NewWakeReader(rowDB{s.DB})
	if err != nil {
		panic(err) // an embedded statement that does not render is a build fault
	}
	return &wakePoller{reader: reader, wake: wakeUp, log: log, every: every}, true
}

// wakePoller is the component of WakeSource.
type wakePoller struct {
	reader *capsql.WakeReader
	wake   func()
	log    *slog.Logger
	every  time.Duration
}

// Name implements queuebox.WakeSource.
func (w *wakePoller) Name() string { return "outbox-wake-listener" }

// Run reads the wake row every interval until ctx ends and returns nil
// then. A failed read is logged once per streak and the reads back off;
// the poller's own timer keeps delivery going meanwhile.
func (w *wakePoller) Run(ctx context.Context) error {
	fails := backoff.Doubling{Min: w.every, Max: 5 * time.Second}
	wait := time.Duration(0)
	for backoff.Sleep(ctx, wait) {
		changed, err := w.reader.Changed(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil
		case err != nil && !isNoWakeTable(err):
			if fails.Failures() == 0 && w.log != nil {
				w.log.Warn("read the wake row", "err", err)
			}
			wait = fails.Next()
			continue
		case changed:
			w.wake()
		}
		fails.Reset()
		wait = w.every
	}
	return nil
}

func isNoWakeTable(err error) bool {
	var n numbered
	return errors.As(err, &n) && n.SQLErrorNumber() == errNoWakeTable
}

// rowDB adapts the pool to the small DB interface of the capture
// package's statements.
type rowDB struct{ db *DB }

// QueryRow implements capsql.DB; an empty answer is capsql.ErrNoRows.
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
