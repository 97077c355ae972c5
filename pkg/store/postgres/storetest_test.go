package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
	"github.com/alternayte/queuebox/pkg/store/storetest"
)

// TestStore runs the shared store suite on PostgreSQL: each case gets a
// fresh migrated schema.
func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Exercise(t, func(t *testing.T) storetest.Database {
		s, db := pgtest.Migrated(t, 4)
		return &pgDatabase{schema: s, db: db}
	})
}

// TestStorePartitioned runs the same suite on tables partitioned by
// created_at (database.partitioning): claims, leases, fences, lanes, pull
// claims, the workbench and replay read and write across partitions. The
// suite writes rows of the past and of now, so they land in the default
// partition and in the premade ones.
func TestStorePartitioned(t *testing.T) {
	t.Parallel()
	storetest.Exercise(t, func(t *testing.T) storetest.Database {
		s, db := pgtest.Migrated(t, 4)
		require.NoError(t, db.Partition(context.Background(), partitionedLayout(), daily, pgtest.Quiet()))
		return &pgDatabase{schema: s, db: db, partitioned: true}
	})
}

// pgDatabase is a test schema as the suite sees it: the store sets open
// pools of their own on it, and Rows reads and writes it in plain SQL on
// the migration pool.
type pgDatabase struct {
	schema      pgtest.Schema
	db          *postgres.DB
	partitioned bool
}

func (d *pgDatabase) Stores(t testing.TB, now func() time.Time) queuebox.Stores {
	return &postgres.Stores{DB: d.schema.Open(t, 4), Layout: d.layout(), Now: now}
}

func (d *pgDatabase) StoresWithoutLedger(t testing.TB, now func() time.Time) queuebox.Stores {
	return &postgres.Stores{DB: d.schema.Open(t, 4), Layout: d.layout().WithoutLedger(), Now: now}
}

func (d *pgDatabase) layout() schema.Layout {
	names := schema.DefaultNames()
	names.Partitioned = d.partitioned
	return schema.New(schema.Postgres, names)
}

func (d *pgDatabase) InsertOutbox(t testing.TB, rows ...storetest.OutboxRow) []string {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, len(rows))
	require.NoError(t, d.db.WithTx(ctx, func(tx pgx.Tx) error {
		for i, r := range rows {
			payload := r.Payload
			if payload == "" {
				payload = "{}"
			}
			err := tx.QueryRow(ctx, `INSERT INTO outbox (topic, key, payload, max_attempts, state, attempt, last_error,
					created_at, updated_at, scheduled_at, destination)
				VALUES ($1, $2, $3::text::jsonb, COALESCE($4::int, 5), COALESCE($5::text, 'pending'), $6, $7,
					COALESCE($8::timestamptz, now()), COALESCE($9::timestamptz, now()), COALESCE($10::timestamptz, now()), $11)
				RETURNING id::text`,
				r.Topic, r.Key, payload, orNull(r.MaxAttempts), orNull(r.State), r.Attempt, r.LastError,
				orNull(r.CreatedAt), orNull(r.UpdatedAt), orNull(r.ScheduledAt), r.DestinationColumn()).Scan(&ids[i])
			if err != nil {
				return err
			}
		}
		return nil
	}))
	return ids
}

func (d *pgDatabase) InsertInbox(t testing.TB, rows ...storetest.InboxRow) []string {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, len(rows))
	require.NoError(t, d.db.WithTx(ctx, func(tx pgx.Tx) error {
		for i, r := range rows {
			err := tx.QueryRow(ctx, `INSERT INTO inbox (source, idempotency_key, payload, consumption, state, created_at)
				VALUES ($1, $2, '{}', COALESCE($3::text, 'push'), COALESCE($4::text, 'pending'), COALESCE($5::timestamptz, now()))
				RETURNING id::text`,
				r.Source, r.IdempotencyKey, orNull(r.Consumption), orNull(r.State), orNull(r.CreatedAt)).Scan(&ids[i])
			if err != nil {
				return err
			}
		}
		return nil
	}))
	return ids
}

// orNull binds the zero value of v as NULL, so that the column takes its
// default.
func orNull[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

func (d *pgDatabase) Now(t testing.TB) time.Time {
	t.Helper()
	var now time.Time
	require.NoError(t, d.db.Pool.QueryRow(context.Background(), `SELECT now()`).Scan(&now))
	return now
}

const outboxColumns = `id::text, topic, key, payload::text, headers::text, state, attempt, max_attempts, last_error,
	COALESCE(claim_token::text, ''), scheduled_at, lease_expires_at, sequence, destination, COALESCE(origin_id::text, '')`

func scanOutbox(row pgx.CollectableRow) (storetest.OutboxState, error) {
	var s storetest.OutboxState
	err := row.Scan(&s.ID, &s.Topic, &s.Key, &s.Payload, &s.Headers, &s.State, &s.Attempt, &s.MaxAttempts,
		&s.LastError, &s.ClaimToken, &s.ScheduledAt, &s.LeaseExpiresAt, &s.Sequence, &s.Destination, &s.OriginID)
	return s, err
}

func (d *pgDatabase) Outbox(t testing.TB, id string) storetest.OutboxState {
	t.Helper()
	rows, err := d.db.Pool.Query(context.Background(), `SELECT `+outboxColumns+` FROM outbox WHERE id = $1`, id)
	require.NoError(t, err)
	s, err := pgx.CollectExactlyOneRow(rows, scanOutbox)
	require.NoError(t, err, "outbox row %s", id)
	return s
}

func (d *pgDatabase) OutboxRows(t testing.TB) []storetest.OutboxState {
	t.Helper()
	rows, err := d.db.Pool.Query(context.Background(), `SELECT `+outboxColumns+` FROM outbox ORDER BY sequence`)
	require.NoError(t, err)
	all, err := pgx.CollectRows(rows, scanOutbox)
	require.NoError(t, err)
	return all
}

const inboxColumns = `id::text, state, COALESCE(claim_token::text, ''), lease_expires_at, last_error, processed_at,
	payload::text, attempt`

func scanInbox(row pgx.CollectableRow) (storetest.InboxState, error) {
	var s storetest.InboxState
	err := row.Scan(&s.ID, &s.State, &s.ClaimToken, &s.LeaseExpiresAt, &s.LastError, &s.ProcessedAt, &s.Payload, &s.Attempt)
	return s, err
}

func (d *pgDatabase) Inbox(t testing.TB, id string) storetest.InboxState {
	t.Helper()
	rows, err := d.db.Pool.Query(context.Background(), `SELECT `+inboxColumns+` FROM inbox WHERE id = $1`, id)
	require.NoError(t, err)
	s, err := pgx.CollectExactlyOneRow(rows, scanInbox)
	require.NoError(t, err, "inbox row %s", id)
	return s
}

func (d *pgDatabase) InboxRows(t testing.TB) []storetest.InboxState {
	t.Helper()
	rows, err := d.db.Pool.Query(context.Background(), `SELECT `+inboxColumns+` FROM inbox`)
	require.NoError(t, err)
	all, err := pgx.CollectRows(rows, scanInbox)
	require.NoError(t, err)
	return all
}

func (d *pgDatabase) InFlight(ctx context.Context, table storetest.Table, key string) ([]string, error) {
	stmt := `SELECT id::text FROM outbox WHERE state = 'processing' AND key = $1 ORDER BY id`
	if table == storetest.InboxTable {
		stmt = `SELECT id::text FROM inbox WHERE state = 'processing' AND consumption = 'push' AND aggregate_id = $1 ORDER BY id`
	}
	rows, err := d.db.Pool.Query(ctx, stmt, key)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// CompareIDs orders UUIDs as PostgreSQL does: bytewise, which for the
// canonical lower-case text form is the string order.
func (d *pgDatabase) CompareIDs(a, b string) int { return strings.Compare(a, b) }

func (d *pgDatabase) Hold(t testing.TB, table storetest.Table, ids ...string) storetest.Holder {
	t.Helper()
	name := "outbox"
	if table == storetest.InboxTable {
		name = "inbox"
	}
	return hold(t, d.schema, `SELECT 1 FROM `+name+` WHERE id = ANY($1::uuid[]) FOR UPDATE`, ids)
}

// hold runs statement in a transaction that it keeps open until the test
// ends or Release, so that what the statement locks stays locked.
func hold(t testing.TB, s pgtest.Schema, statement string, args ...any) *pgHolder {
	t.Helper()
	ctx := context.Background()
	tx, err := s.Connect(t).Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	_, err = tx.Exec(ctx, statement, args...)
	require.NoError(t, err)
	h := &pgHolder{tx: tx, watch: s.Connect(t)}
	require.NoError(t, tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&h.pid))
	return h
}

// pgHolder is a transaction that holds locks, and a second connection
// that watches who waits on it.
type pgHolder struct {
	tx    pgx.Tx
	pid   int
	watch *pgx.Conn
}

// WaitBlocked waits until n backends wait, directly or through another
// waiter, on the holding transaction.
func (h *pgHolder) WaitBlocked(t testing.TB, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return h.blocked() == n }, 30*time.Second, 5*time.Millisecond,
		"%d statements waiting", n)
}

// blocked counts the backends that wait, directly or through another
// waiter, on the holding transaction; -1 when the count fails. It runs
// in a poll, so it does not fail the test itself.
func (h *pgHolder) blocked() int {
	var got int
	err := h.watch.QueryRow(context.Background(), `
		WITH RECURSIVE blocked(pid) AS (
			SELECT a.pid FROM pg_stat_activity a WHERE $1::int = ANY (pg_blocking_pids(a.pid))
			UNION
			SELECT a.pid FROM pg_stat_activity a JOIN blocked b ON b.pid = ANY (pg_blocking_pids(a.pid))
		)
		SELECT count(*) FROM blocked`, h.pid).Scan(&got)
	if err != nil {
		return -1
	}
	return got
}

func (h *pgHolder) Release(t testing.TB) {
	t.Helper()
	require.NoError(t, h.tx.Commit(context.Background()))
}
