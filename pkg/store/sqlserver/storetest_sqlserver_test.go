//go:build sqlserver

package sqlserver_test

// The shared store suite on a real SQL Server. It is built only with the
// sqlserver tag (go test -tags sqlserver), because no SQL Server runs on
// the machines this was written on: integration/sqlserver starts one in
// Docker and runs it. QUEUEBOX_SQLSERVER_DSN is a go-mssqldb URL of an
// account that may create databases (its database is ignored); each case
// gets a database of its own, migrated, and drops it at the end.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/schema/schematest"
	"github.com/alternayte/queuebox/pkg/store/sqlserver"
	"github.com/alternayte/queuebox/pkg/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	dsn := os.Getenv("QUEUEBOX_SQLSERVER_DSN")
	require.NotEmpty(t, dsn, "QUEUEBOX_SQLSERVER_DSN names the SQL Server of the -tags sqlserver tests")
	storetest.Exercise(t, func(t *testing.T) storetest.Database { return newDatabase(t, dsn) })
}

// msDatabase is one test database as the suite sees it.
type msDatabase struct {
	dsn string // of the test database; holds the password
	db  *sqlserver.DB
}

func newDatabase(t *testing.T, serverDSN string) *msDatabase {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "qb_test_" + hex.EncodeToString(b)
	admin, err := sql.Open(sqlserver.DriverName, serverDSN)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close() })
	_, err = admin.ExecContext(ctx, "CREATE DATABASE "+schema.SQLServer.Quote(name))
	require.NoError(t, err)
	t.Cleanup(func() {
		q := schema.SQLServer.Quote(name)
		_, _ = admin.ExecContext(context.Background(), "ALTER DATABASE "+q+" SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE "+q)
	})
	u, err := url.Parse(serverDSN)
	require.NoError(t, err)
	q := u.Query()
	q.Set("database", name)
	u.RawQuery = q.Encode()
	d := &msDatabase{dsn: u.String()}
	d.db = d.open(t)
	_, err = d.db.Migrate(ctx, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return d
}

func (d *msDatabase) open(t testing.TB) *sqlserver.DB {
	t.Helper()
	db, err := sqlserver.Open(context.Background(), sqlserver.Options{ConnString: d.dsn, DisplayURL: "test", PoolSize: 4,
		StartupTimeout: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(db.Close)
	return db
}

func (d *msDatabase) Stores(t testing.TB, now func() time.Time) queuebox.Stores {
	return &sqlserver.Stores{DB: d.open(t), Layout: schematest.DefaultLayout(schema.SQLServer), Now: now}
}

func (d *msDatabase) StoresWithoutLedger(t testing.TB, now func() time.Time) queuebox.Stores {
	return &sqlserver.Stores{DB: d.open(t), Layout: schematest.DefaultLayout(schema.SQLServer).WithoutLedger(), Now: now}
}

// utcOrNull binds a zero time as NULL and any other in UTC, the zone of
// every DATETIME2 column.
func utcOrNull(v time.Time) any {
	if v.IsZero() {
		return nil
	}
	return v.UTC()
}

func orNull[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

func (d *msDatabase) inTx(t testing.TB, fn func(*sql.Tx) error) {
	t.Helper()
	tx, err := d.db.SQL.BeginTx(context.Background(), nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	require.NoError(t, fn(tx))
	require.NoError(t, tx.Commit())
}

func (d *msDatabase) InsertOutbox(t testing.TB, rows ...storetest.OutboxRow) []string {
	t.Helper()
	ids := make([]string, len(rows))
	d.inTx(t, func(tx *sql.Tx) error {
		for i, r := range rows {
			payload := r.Payload
			if payload == "" {
				payload = "{}"
			}
			var key any
			if r.Key != nil {
				key = *r.Key
			}
			err := tx.QueryRow(`INSERT INTO outbox (topic, [key], payload, max_attempts, state, attempt, last_error,
					created_at, updated_at, scheduled_at, destination)
				OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.id))
				VALUES (@p1, @p2, @p3, COALESCE(@p4, 5), COALESCE(@p5, N'pending'), @p6, @p7,
					COALESCE(CAST(@p8 AS DATETIME2), SYSUTCDATETIME()), COALESCE(CAST(@p9 AS DATETIME2), SYSUTCDATETIME()),
					COALESCE(CAST(@p10 AS DATETIME2), SYSUTCDATETIME()), @p11)`,
				r.Topic, key, payload, orNull(r.MaxAttempts), orNull(string(r.State)), r.Attempt, r.LastError,
				utcOrNull(r.CreatedAt), utcOrNull(r.UpdatedAt), utcOrNull(r.ScheduledAt), r.DestinationColumn()).Scan(&ids[i])
			if err != nil {
				return err
			}
		}
		return nil
	})
	return ids
}

func (d *msDatabase) InsertInbox(t testing.TB, rows ...storetest.InboxRow) []string {
	t.Helper()
	ids := make([]string, len(rows))
	d.inTx(t, func(tx *sql.Tx) error {
		for i, r := range rows {
			err := tx.QueryRow(`INSERT INTO inbox (source, idempotency_key, payload, consumption, state, created_at)
				OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.id))
				VALUES (@p1, @p2, N'{}', COALESCE(@p3, 'push'), COALESCE(@p4, N'pending'),
					COALESCE(CAST(@p5 AS DATETIME2), SYSUTCDATETIME()))`,
				r.Source, r.IdempotencyKey, orNull(r.Consumption), orNull(string(r.State)), utcOrNull(r.CreatedAt)).Scan(&ids[i])
			if err != nil {
				return err
			}
		}
		return nil
	})
	return ids
}

func (d *msDatabase) Now(t testing.TB) time.Time {
	t.Helper()
	var now time.Time
	require.NoError(t, d.db.SQL.QueryRow(`SELECT SYSUTCDATETIME()`).Scan(&now))
	return now.UTC()
}

const outboxColumns = `LOWER(CONVERT(NVARCHAR(36), id)), topic, [key], payload, headers, state, attempt, max_attempts,
	last_error, COALESCE(LOWER(CONVERT(NVARCHAR(36), claim_token)), ''), scheduled_at, lease_expires_at, sequence,
	destination, COALESCE(LOWER(CONVERT(NVARCHAR(36), origin_id)), '')`

func scanOutbox(rows *sql.Rows) (storetest.OutboxState, error) {
	var s storetest.OutboxState
	var key, lastError sql.NullString
	var lease sql.NullTime
	err := rows.Scan(&s.ID, &s.Topic, &key, &s.Payload, &s.Headers, &s.State, &s.Attempt, &s.MaxAttempts,
		&lastError, &s.ClaimToken, &s.ScheduledAt, &lease, &s.Sequence, &s.Destination, &s.OriginID)
	s.Key, s.LastError, s.LeaseExpiresAt = ptr(key), ptr(lastError), timePtr(lease)
	s.ScheduledAt = s.ScheduledAt.UTC()
	return s, err
}

func ptr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func timePtr(v sql.NullTime) *time.Time {
	if !v.Valid {
		return nil
	}
	u := v.Time.UTC()
	return &u
}

func queryAll[T any](t testing.TB, db *sql.DB, scan func(*sql.Rows) (T, error), stmt string, args ...any) []T {
	t.Helper()
	rows, err := db.Query(stmt, args...)
	require.NoError(t, err)
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		require.NoError(t, err)
		out = append(out, v)
	}
	require.NoError(t, rows.Err())
	return out
}

func (d *msDatabase) Outbox(t testing.TB, id string) storetest.OutboxState {
	t.Helper()
	all := queryAll(t, d.db.SQL, scanOutbox, `SELECT `+outboxColumns+` FROM outbox WHERE id = @p1`, id)
	require.Len(t, all, 1, "outbox row %s", id)
	return all[0]
}

func (d *msDatabase) OutboxRows(t testing.TB) []storetest.OutboxState {
	t.Helper()
	return queryAll(t, d.db.SQL, scanOutbox, `SELECT `+outboxColumns+` FROM outbox ORDER BY sequence`)
}

const inboxColumns = `LOWER(CONVERT(NVARCHAR(36), id)), state, COALESCE(LOWER(CONVERT(NVARCHAR(36), claim_token)), ''),
	lease_expires_at, last_error, processed_at, payload, attempt`

func scanInbox(rows *sql.Rows) (storetest.InboxState, error) {
	var s storetest.InboxState
	var lease, processed sql.NullTime
	var lastError sql.NullString
	err := rows.Scan(&s.ID, &s.State, &s.ClaimToken, &lease, &lastError, &processed, &s.Payload, &s.Attempt)
	s.LeaseExpiresAt, s.LastError, s.ProcessedAt = timePtr(lease), ptr(lastError), timePtr(processed)
	return s, err
}

func (d *msDatabase) Inbox(t testing.TB, id string) storetest.InboxState {
	t.Helper()
	all := queryAll(t, d.db.SQL, scanInbox, `SELECT `+inboxColumns+` FROM inbox WHERE id = @p1`, id)
	require.Len(t, all, 1, "inbox row %s", id)
	return all[0]
}

func (d *msDatabase) InboxRows(t testing.TB) []storetest.InboxState {
	t.Helper()
	return queryAll(t, d.db.SQL, scanInbox, `SELECT `+inboxColumns+` FROM inbox`)
}

func (d *msDatabase) InFlight(ctx context.Context, table storetest.Table, key string) ([]string, error) {
	stmt := `SELECT LOWER(CONVERT(NVARCHAR(36), id)) FROM outbox WHERE state = 'processing' AND [key] = @p1 ORDER BY id`
	if table == storetest.InboxTable {
		stmt = `SELECT LOWER(CONVERT(NVARCHAR(36), id)) FROM inbox
			WHERE state = 'processing' AND consumption = 'push' AND aggregate_id = @p1 ORDER BY id`
	}
	rows, err := d.db.SQL.QueryContext(ctx, stmt, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// CompareIDs orders UNIQUEIDENTIFIERs as SQL Server does: by the last
// group of the text form first, then the groups before it, right to left.
func (d *msDatabase) CompareIDs(a, b string) int {
	ga, gb := strings.Split(a, "-"), strings.Split(b, "-")
	for i := len(ga) - 1; i >= 0; i-- {
		if c := strings.Compare(ga[i], gb[i]); c != 0 {
			return c
		}
	}
	return 0
}

func (d *msDatabase) Hold(t testing.TB, table storetest.Table, ids ...string) storetest.Holder {
	t.Helper()
	ctx := context.Background()
	name := "outbox"
	if table == storetest.InboxTable {
		name = "inbox"
	}
	conn, err := d.db.SQL.Conn(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	tx, err := conn.BeginTx(ctx, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback() })
	list, err := json.Marshal(ids)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `SELECT id FROM `+name+` WITH (UPDLOCK, HOLDLOCK, ROWLOCK)
		WHERE id IN (SELECT CAST([value] AS UNIQUEIDENTIFIER) FROM OPENJSON(@p1))`, string(list))
	require.NoError(t, err)
	h := &msHolder{tx: tx, watch: d.db.SQL}
	require.NoError(t, tx.QueryRowContext(ctx, `SELECT @@SPID`).Scan(&h.spid))
	return h
}

// msHolder is a transaction that holds row locks, watched through the
// pool for the sessions it blocks.
type msHolder struct {
	tx    *sql.Tx
	spid  int
	watch *sql.DB
}

// WaitBlocked waits until n sessions wait, directly or through another
// waiter, on the holding session.
func (h *msHolder) WaitBlocked(t testing.TB, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		var got int
		err := h.watch.QueryRow(`
			WITH blocked AS (
				SELECT r.session_id FROM sys.dm_exec_requests AS r WHERE r.blocking_session_id = @p1
				UNION ALL
				SELECT r.session_id FROM sys.dm_exec_requests AS r JOIN blocked AS b ON r.blocking_session_id = b.session_id
			)
			SELECT COUNT(DISTINCT session_id) FROM blocked`, h.spid).Scan(&got)
		return err == nil && got == n
	}, 30*time.Second, 5*time.Millisecond, "%d statements waiting", n)
}

func (h *msHolder) Release(t testing.TB) {
	t.Helper()
	require.NoError(t, h.tx.Commit())
}
