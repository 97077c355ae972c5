package postgres_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/startup"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// A database kept behind V17 (database.migrate false) has no ledger
// table: the start turns the ledger off, says so once when its writes
// were wanted, and deliver's outcome write works as before it. Reading
// and cleaning the ledger find nothing and fail nothing.
func TestStartWithoutTheLedgerTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := pgtest.Migrated(t, 2)
	l := schema.New(schema.Postgres, schema.DefaultNames())

	kept, err := startup.Prepare(ctx, db, l, false, pgtest.Quiet())
	require.NoError(t, err)
	require.Equal(t, l.Ledger, kept.Ledger, "with the table, the ledger stays as asked")

	_, err = s.Connect(t).Exec(ctx, `DROP TABLE outbox_attempts`)
	require.NoError(t, err)
	var logs bytes.Buffer
	off, err := startup.Prepare(ctx, db, l, false, slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, err, "a missing ledger table stops no start")
	require.Equal(t, schema.Ledger{}, off.Ledger)
	require.Contains(t, logs.String(), "the delivery ledger is off until its table exists")
	require.Contains(t, logs.String(), "outbox.ledger.enabled: false")

	logs.Reset()
	_, err = startup.Prepare(ctx, db, l.WithoutLedger(), false, slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, err)
	require.NotContains(t, logs.String(), "ledger", "no word when the ledger was not wanted")

	_, err = s.Connect(t).Exec(ctx, `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{}')`)
	require.NoError(t, err)
	o, err := postgres.NewOutbox(db, off, time.Minute)
	require.NoError(t, err)
	got, err := o.Claim(ctx, 1)
	require.NoError(t, err)
	require.Len(t, got, 1)
	done := queuebox.Sent()
	done.Lease, done.Attempt = got[0].Lease(), queuebox.AttemptFacts{Status: "200", StartedAt: time.Now()}
	written, err := o.Finish(ctx, []queuebox.Outcome{done})
	require.NoError(t, err)
	require.Len(t, written, 1)

	wb, err := postgres.NewWorkbench(db, off)
	require.NoError(t, err)
	attempts, err := wb.Attempts(ctx, []string{got[0].ID}, 10)
	require.NoError(t, err)
	require.Empty(t, attempts)
	r, err := postgres.NewRetention(db, off)
	require.NoError(t, err)
	n, err := r.LedgerByAge(ctx, time.Hour, 10)
	require.NoError(t, err)
	require.Zero(t, n)
}
