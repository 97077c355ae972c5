package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The cleanup cases run in the shared suite (storetest_test.go); this
// file keeps what only PostgreSQL shows.

// The cleanup statements follow the configured table and column names.
func TestRetentionUsesTheColumnMapping(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	for _, stmt := range []string{
		`ALTER TABLE outbox RENAME COLUMN state TO status`,
		`ALTER TABLE outbox RENAME COLUMN updated_at TO changed_at`,
		`ALTER TABLE outbox RENAME COLUMN id TO message_id`,
		`ALTER TABLE outbox RENAME TO qb_outbox`,
		`ALTER TABLE inbox RENAME COLUMN created_at TO received_at`,
		`ALTER TABLE inbox RENAME TO qb_inbox`,
	} {
		_, err := conn.Exec(ctx, stmt)
		require.NoError(t, err)
	}
	mapped := schema.DefaultNames()
	mapped.OutboxTable, mapped.InboxTable = "qb_outbox", "qb_inbox"
	mapped.Outbox.State = "status"
	mapped.Outbox.UpdatedAt = "changed_at"
	mapped.Outbox.ID = "message_id"
	mapped.Inbox.CreatedAt = "received_at"
	r, err := postgres.NewRetention(db, schema.New(schema.Postgres, mapped))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO qb_outbox (topic, payload, status, changed_at) VALUES
		('sent-old', '{}', 'sent', now() - interval '2 hours'), ('sent-new', '{}', 'sent', now()),
		('dead-3', '{}', 'dead', now() - interval '3 hours'), ('dead-4', '{}', 'dead', now() - interval '4 hours')`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO qb_inbox (source, idempotency_key, payload, state, received_at) VALUES
		('orders', 'old', '{}', 'processed', now() - interval '2 hours'), ('orders', 'new', '{}', 'processed', now())`)
	require.NoError(t, err)

	n, err := r.OutboxByAge(ctx, time.Hour, 10)
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
	_, err = conn.Exec(ctx, `INSERT INTO qb_outbox (topic, payload, status, changed_at) VALUES
		('dead-1', '{}', 'dead', now() - interval '1 minute'), ('dead-2', '{}', 'dead', now() - interval '2 minutes')`)
	require.NoError(t, err)
	n, err = r.OutboxByCount(ctx, "dead", 1, 10)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	n, err = r.InboxByAge(ctx, time.Hour, 10)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)

	names := func(query string) []string {
		rows, err := conn.Query(ctx, query)
		require.NoError(t, err)
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		slices.Sort(out)
		return out
	}
	require.Equal(t, []string{"dead-1", "sent-new"}, names(`SELECT topic FROM qb_outbox`))
	require.Equal(t, []string{"new"}, names(`SELECT idempotency_key FROM qb_inbox`))
}
