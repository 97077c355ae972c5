package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/migrate"
)

// migrationLockSQL takes a session advisory lock keyed on the schema, so
// that replicas starting at once migrate one after another, while tests
// that each own a schema do not wait on each other.
const (
	migrationLockSQL   = `SELECT pg_advisory_lock(hashtext('queuebox.migrate.' || current_schema()))`
	migrationUnlockSQL = `SELECT pg_advisory_unlock(hashtext('queuebox.migrate.' || current_schema()))`
)

const historyDDL = `
CREATE TABLE IF NOT EXISTS flyway_schema_history (
    installed_rank INT NOT NULL PRIMARY KEY,
    version VARCHAR(50),
    description VARCHAR(200) NOT NULL,
    type VARCHAR(20) NOT NULL,
    script VARCHAR(1000) NOT NULL,
    checksum INT,
    installed_by VARCHAR(100) NOT NULL,
    installed_on TIMESTAMP NOT NULL DEFAULT now(),
    execution_time INT NOT NULL,
    success BOOLEAN NOT NULL
)`

// Migrate applies the bundled PostgreSQL migrations that the history table
// does not list, each in its own transaction, under a session lock on a
// dedicated connection. It returns the versions it applied.
func (db *DB) Migrate(ctx context.Context, log *slog.Logger) ([]int, error) {
	known, err := migrate.Load("postgres")
	if err != nil {
		return nil, err
	}
	conn, err := db.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, migrationLockSQL); err != nil {
		return nil, fmt.Errorf("migrate: take the migration lock: %w", err)
	}
	defer func() {
		// A fresh context: the unlock must run even when ctx is done,
		// otherwise the pooled session keeps the lock.
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, migrationUnlockSQL); err != nil {
			conn.Conn().Close(uctx) //nolint:errcheck // dropping the session releases the lock
		}
	}()
	return applyPending(ctx, conn, known, log)
}

// historyExistsSQL looks in the schema where historyDDL would create the
// table, so a history table elsewhere on the search path is not mistaken
// for this schema's.
const historyExistsSQL = `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables
	WHERE schemaname = current_schema() AND tablename = 'flyway_schema_history')`

func applyPending(ctx context.Context, conn *pgxpool.Conn, known []migrate.Migration, log *slog.Logger) ([]int, error) {
	// Only a database without history needs DDL here: an account with no
	// right to create tables still starts against an up-to-date schema.
	var exists bool
	if err := conn.QueryRow(ctx, historyExistsSQL).Scan(&exists); err != nil {
		return nil, fmt.Errorf("migrate: look for %s: %w", migrate.HistoryTable, err)
	}
	if !exists {
		if _, err := conn.Exec(ctx, historyDDL); err != nil {
			return nil, fmt.Errorf("migrate: create %s: %w", migrate.HistoryTable, err)
		}
	}
	return migrate.Apply(ctx, runner{conn}, known, log)
}

// runner applies migrations on the connection that holds the lock.
type runner struct{ conn *pgxpool.Conn }

func (r runner) History(ctx context.Context) ([]migrate.Applied, int, error) {
	return readHistory(ctx, r.conn)
}

func (r runner) Apply(ctx context.Context, m migrate.Migration, rank int) error {
	return applyOne(ctx, r.conn, m, rank)
}

func readHistory(ctx context.Context, conn *pgxpool.Conn) ([]migrate.Applied, int, error) {
	rows, err := conn.Query(ctx, `SELECT installed_rank, version, script, checksum, success
		FROM flyway_schema_history WHERE version IS NOT NULL ORDER BY installed_rank`)
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
			checksum *int32
		)
		if err := rows.Scan(&rank, &version, &a.Script, &checksum, &a.Success); err != nil {
			return nil, 0, fmt.Errorf("migrate: read %s: %w", migrate.HistoryTable, err)
		}
		if _, err := fmt.Sscanf(version, "%d", &a.Version); err != nil {
			return nil, 0, fmt.Errorf("migrate: %s lists version %q, which is not a QueueBox version", migrate.HistoryTable, version)
		}
		a.Checksum = checksum
		maxRank = max(maxRank, rank)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("migrate: read %s: %w", migrate.HistoryTable, err)
	}
	// Rows without a version (Flyway baselines, repeatables) still take a rank.
	var all int
	if err := conn.QueryRow(ctx, `SELECT COALESCE(max(installed_rank), 0) FROM flyway_schema_history`).Scan(&all); err == nil {
		maxRank = max(maxRank, all)
	}
	return out, maxRank, nil
}

func applyOne(ctx context.Context, conn *pgxpool.Conn, m migrate.Migration, rank int) error {
	start := time.Now()
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("migrate: apply %s: %w", m.Script, err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO flyway_schema_history
			(installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
			VALUES ($1, $2, $3, 'SQL', $4, $5, current_user, $6, true)`,
			rank, fmt.Sprint(m.Version), m.Description, m.Script, m.Checksum, int(time.Since(start).Milliseconds()))
		if err != nil {
			return fmt.Errorf("migrate: record %s: %w", m.Script, err)
		}
		return nil
	})
}
