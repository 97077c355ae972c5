package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// endPooledSession ends, on the server, the session of the only pooled
// connection of db while it sits idle: what a server restart, a failover
// or a terminated backend leaves behind for the next user of the pool.
func endPooledSession(t *testing.T, s pgtest.Schema, db *postgres.DB) {
	t.Helper()
	ctx := context.Background()
	var pid uint32
	require.NoError(t, db.WithConn(ctx, func(c *pgxpool.Conn) error {
		pid = c.Conn().PgConn().PID()
		return nil
	}))
	admin := s.Connect(t)
	_, err := admin.Exec(ctx, `SELECT pg_terminate_backend($1)`, int32(pid))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		var n int
		err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, int32(pid)).Scan(&n)
		return err == nil && n == 0
	}, 10*time.Second, 5*time.Millisecond)
}

// TestInsertAfterTheServerEndedAPooledSession: the database answers, so a
// received message is stored, not refused for a connection that died
// while idle.
func TestInsertAfterTheServerEndedAPooledSession(t *testing.T) {
	t.Parallel()
	s, db := pgtest.Migrated(t, 1)
	in := newInbox(t, db)
	endPooledSession(t, s, db)

	id, inserted, err := in.Insert(context.Background(), queuebox.ReceivedRow{
		ID: "6f1c1f4e-2a55-4c3e-9a57-0d8f1b2c3d4e", Source: "stripe", IdempotencyKey: "evt_1", Payload: []byte(`{}`)})
	require.NoError(t, err)
	require.True(t, inserted)
	require.Equal(t, "6f1c1f4e-2a55-4c3e-9a57-0d8f1b2c3d4e", id)
}

// TestPingAfterTheServerEndedAPooledSession: the database health check
// reports the database, not a connection that died while idle.
func TestPingAfterTheServerEndedAPooledSession(t *testing.T) {
	t.Parallel()
	s, db := pgtest.Migrated(t, 1)
	endPooledSession(t, s, db)
	require.NoError(t, db.Ping(context.Background()))
}

// TestInsertRetryKnowsItsOwnRow: when the try whose connection broke had
// committed, the retry meets the row as a conflict. The row under the
// message's own id is this message (stored), a row under another id is a
// duplicate.
func TestInsertRetryKnowsItsOwnRow(t *testing.T) {
	t.Parallel()
	_, db := pgtest.Migrated(t, 1)
	in := newInbox(t, db)
	ctx := context.Background()
	row := queuebox.ReceivedRow{ID: "0b7f7f61-6f3b-4f07-8f57-7b8a3b1f6a10", Source: "stripe", IdempotencyKey: "evt_1", Payload: []byte(`{}`)}
	_, inserted, err := in.Insert(ctx, row)
	require.NoError(t, err)
	require.True(t, inserted)

	id, inserted, err := in.Own(ctx, row)
	require.NoError(t, err)
	require.True(t, inserted, "the row carries this message's id")
	require.Equal(t, row.ID, id)

	other := row
	other.ID = "5d0e8c2a-1b9f-4e7d-a3c6-2f4b8e9d0c1a"
	id, inserted, err = in.Own(ctx, other)
	require.NoError(t, err)
	require.False(t, inserted, "another message holds the key: a duplicate")
	require.Empty(t, id)
}

// TestRepeatableStatementsAfterTheServerEndedAPooledSession: the claims,
// renewals, reclaims and cleanups of the workers are safe to repeat, so a
// connection that died while idle costs them no failure (no error log, no
// component reported down) when the database answers.
func TestRepeatableStatementsAfterTheServerEndedAPooledSession(t *testing.T) {
	t.Parallel()
	layout := schema.New(schema.Postgres, schema.DefaultNames())
	lease := []claim.Lease{{ID: "0b7f7f61-6f3b-4f07-8f57-7b8a3b1f6a10", Token: "5d0e8c2a-1b9f-4e7d-a3c6-2f4b8e9d0c1a"}}
	for name, op := range map[string]func(t *testing.T, ctx context.Context, db *postgres.DB) error{
		"outbox claim": func(t *testing.T, ctx context.Context, db *postgres.DB) error {
			o, err := postgres.NewOutbox(db, layout, time.Minute)
			require.NoError(t, err)
			_, err = o.Claim(ctx, 10)
			return err
		},
		"outbox renew": func(t *testing.T, ctx context.Context, db *postgres.DB) error {
			o, err := postgres.NewOutbox(db, layout, time.Minute)
			require.NoError(t, err)
			_, err = o.Renew(ctx, lease)
			return err
		},
		"outbox reclaim": func(t *testing.T, ctx context.Context, db *postgres.DB) error {
			o, err := postgres.NewOutbox(db, layout, time.Minute)
			require.NoError(t, err)
			_, err = o.Reclaim(ctx)
			return err
		},
		"relay claim": func(t *testing.T, ctx context.Context, db *postgres.DB) error {
			r, err := postgres.NewRelay(db, layout, queuebox.RelayParams{Lease: time.Minute, Sources: []string{"stripe"}})
			require.NoError(t, err)
			_, err = r.Claim(ctx, 10)
			return err
		},
		"relay renew": func(t *testing.T, ctx context.Context, db *postgres.DB) error {
			r, err := postgres.NewRelay(db, layout, queuebox.RelayParams{Lease: time.Minute, Sources: []string{"stripe"}})
			require.NoError(t, err)
			_, err = r.Renew(ctx, lease)
			return err
		},
		"relay reclaim": func(t *testing.T, ctx context.Context, db *postgres.DB) error {
			r, err := postgres.NewRelay(db, layout, queuebox.RelayParams{Lease: time.Minute, Sources: []string{"stripe"}})
			require.NoError(t, err)
			_, err = r.Reclaim(ctx)
			return err
		},
		"retention": func(t *testing.T, ctx context.Context, db *postgres.DB) error {
			r, err := postgres.NewRetention(db, layout)
			require.NoError(t, err)
			_, err = r.OutboxByAge(ctx, time.Hour, 100)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, db := pgtest.Migrated(t, 1)
			endPooledSession(t, s, db)
			require.NoError(t, op(t, context.Background(), db))
		})
	}
}
