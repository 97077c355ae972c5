package sqlserver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/migrate"
)

// The migration lock: an application lock of the session, so replicas
// starting at once migrate one after another. It waits as long as the
// start may (ctx), not the claim locks' 10 s: a migration can take long.
const (
	migrationLockSQL = `DECLARE @granted INT;
EXEC @granted = sys.sp_getapplock @Resource = N'queuebox.migrate', @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = -1;
IF @granted < 0 THROW 51001, N'QueueBox: the migration lock was not granted', 1;`
	migrationUnlockSQL = `EXEC sys.sp_releaseapplock @Resource = N'queuebox.migrate', @LockOwner = 'Session'`
)

// historyDDL is Flyway's history table as Flyway creates it on SQL
// Server, so either tool carries on where the other stopped.
const historyDDL = `IF OBJECT_ID(N'flyway_schema_history', N'U') IS NULL
CREATE TABLE flyway_schema_history (
    installed_rank INT NOT NULL CONSTRAINT flyway_schema_history_pk PRIMARY KEY,
    version NVARCHAR(50),
    description NVARCHAR(200),
    type NVARCHAR(20) NOT NULL,
    script NVARCHAR(1000) NOT NULL,
    checksum INT,
    installed_by NVARCHAR(100) NOT NULL,
    installed_on DATETIME NOT NULL CONSTRAINT flyway_schema_history_installed_on DEFAULT GETDATE(),
    execution_time INT NOT NULL,
    success BIT NOT NULL
)`

const (
	historyReadSQL = `SELECT installed_rank, version, script, checksum, success
FROM flyway_schema_history WHERE version IS NOT NULL ORDER BY installed_rank`
	historyRankSQL   = `SELECT COALESCE(MAX(installed_rank), 0) FROM flyway_schema_history`
	historyInsertSQL = `INSERT INTO flyway_schema_history
    (installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
VALUES (@p1, @p2, @p3, 'SQL', @p4, @p5, SUSER_SNAME(), @p6, 1)`
)

// Migrate applies the bundled SQL Server migrations that the history
// table does not list, each in its own transaction with its batches
// split on GO lines, under the session lock on one connection. It
// returns the versions it applied.
func (db *DB) Migrate(ctx context.Context, log *slog.Logger) ([]int, error) {
	known, err := migrate.Load("sqlserver")
	if err != nil {
		return nil, err
	}
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, migrationLockSQL); err != nil {
		return nil, fmt.Errorf("migrate: take the migration lock: %w", err)
	}
	defer func() {
		// A fresh context: the unlock must run even when ctx is done;
		// if it fails, closing the session releases the lock.
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.ExecContext(uctx, migrationUnlockSQL); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	if _, err := conn.ExecContext(ctx, historyDDL); err != nil {
		return nil, fmt.Errorf("migrate: create %s: %w", migrate.HistoryTable, err)
	}
	return migrate.Apply(ctx, runner{conn}, known, log)
}

// runner applies migrations on the connection that holds the lock.
type runner struct{ conn *sql.Conn }

func (r runner) History(ctx context.Context) ([]migrate.Applied, int, error) {
	return readHistory(ctx, r.conn)
}

func (r runner) Apply(ctx context.Context, m migrate.Migration, rank int) error {
	return applyOne(ctx, r.conn, m, rank)
}

func readHistory(ctx context.Context, conn *sql.Conn) ([]migrate.Applied, int, error) {
	rows, err := conn.QueryContext(ctx, historyReadSQL)
	if err != nil {
		return nil, 0, fmt.Errorf("migrate: read %s: %w", migrate.HistoryTable, err)
	}
	defer rows.Close()
	var out []migrate.Applied
	maxRank := 0
	for rows.Next() {
		var (
			rank     int
			version  string
			a        migrate.Applied
			checksum sql.NullInt32
		)
		if err := rows.Scan(&rank, &version, &a.Script, &checksum, &a.Success); err != nil {
			return nil, 0, fmt.Errorf("migrate: read %s: %w", migrate.HistoryTable, err)
		}
		if _, err := fmt.Sscanf(version, "%d", &a.Version); err != nil {
			return nil, 0, fmt.Errorf("migrate: %s lists version %q, which is not a QueueBox version", migrate.HistoryTable, version)
		}
		if checksum.Valid {
			a.Checksum = &checksum.Int32
		}
		maxRank = max(maxRank, rank)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("migrate: read %s: %w", migrate.HistoryTable, err)
	}
	// Rows without a version (Flyway baselines, repeatables) still take a rank.
	var all int
	if err := conn.QueryRowContext(ctx, historyRankSQL).Scan(&all); err == nil {
		maxRank = max(maxRank, all)
	}
	return out, maxRank, nil
}

// applyOne runs the batches of one migration and its history row in one
// transaction: a failing batch leaves neither the change nor the row.
func applyOne(ctx context.Context, conn *sql.Conn, m migrate.Migration, rank int) error {
	start := time.Now()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: apply %s: %w", m.Script, err)
	}
	defer func() { _ = tx.Rollback() }()
	for i, batch := range migrate.SplitBatches(m.SQL) {
		if _, err := tx.ExecContext(ctx, batch); err != nil {
			return fmt.Errorf("migrate: apply %s, batch %d: %w", m.Script, i+1, err)
		}
	}
	_, err = tx.ExecContext(ctx, historyInsertSQL, rank, fmt.Sprint(m.Version), m.Description, m.Script, m.Checksum,
		int(time.Since(start).Milliseconds()))
	if err != nil {
		return fmt.Errorf("migrate: record %s: %w", m.Script, err)
	}
	return tx.Commit()
}
