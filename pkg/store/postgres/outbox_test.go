package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The claim, fence, reclaim and lock-order cases of the outbox run in the
// shared suite (storetest_test.go); this file keeps what only PostgreSQL
// shows.

func outboxStore(t *testing.T, db *postgres.DB, lease time.Duration) *postgres.Outbox {
	t.Helper()
	o, err := postgres.NewOutbox(db, schema.New(schema.Postgres, config.Default().Database), lease)
	require.NoError(t, err)
	return o
}

func TestPendingStats(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	o := outboxStore(t, db, time.Minute)
	st, err := o.Pending(ctx)
	require.NoError(t, err)
	require.Empty(t, st.ByTopic)
	require.Zero(t, st.OldestAge)
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, payload, created_at) VALUES
		('a', '{}', now() - interval '1 hour'), ('a', '{}', now()), ('b', '{}', now())`)
	require.NoError(t, err)
	st, err = o.Pending(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"a": 2, "b": 1}, st.ByTopic)
	require.InDelta(t, time.Hour.Seconds(), st.OldestAge.Seconds(), 60, "the database clock measures the age")
}

// A claim returns the payload as the application wrote it: jsonb's text
// form puts blanks after colons and commas, which the store drops.
func TestClaimReturnsCompactPayload(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	ctx := context.Background()
	_, err := s.Connect(t).Exec(ctx, `INSERT INTO outbox (topic, payload) VALUES ('t', '{"n": 1, "a": [1, 2]}')`)
	require.NoError(t, err)
	got, err := outboxStore(t, db, time.Minute).Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, `{"a":[1,2],"n":1}`, string(got[0].Payload))
}

// NextDue reports the wait until the earliest pending row scheduled after
// now, by the database clock: not a row already due, nor one that is
// processing or final, and nothing when no row waits.
func TestNextDueIsTheEarliestFutureRetry(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	o := outboxStore(t, db, time.Minute)
	_, ok, err := o.NextDue(ctx)
	require.NoError(t, err)
	require.False(t, ok, "an empty outbox has no waiting row")

	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, payload, state, scheduled_at) VALUES
		('t', '{}', 'pending', now() - interval '1 hour'),
		('t', '{}', 'sent', now() + interval '1 minute'),
		('t', '{}', 'dead', now() + interval '1 minute')`)
	require.NoError(t, err)
	_, ok, err = o.NextDue(ctx)
	require.NoError(t, err)
	require.False(t, ok, "a due row and final rows are not waiting")

	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, payload, state, scheduled_at) VALUES
		('t', '{}', 'pending', now() + interval '1 hour'),
		('t', '{}', 'pending', now() + interval '10 minutes')`)
	require.NoError(t, err)
	delay, ok, err := o.NextDue(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.InDelta(t, (10 * time.Minute).Seconds(), delay.Seconds(), 60, "the earliest future retry, by the database clock")

	// A test clock moves the store's now, as it does for claims: twenty
	// minutes on, the ten minute row is due and the hour one is next.
	var dbNow time.Time
	require.NoError(t, conn.QueryRow(ctx, `SELECT now()`).Scan(&dbNow))
	later, err := postgres.NewOutbox(db, schema.New(schema.Postgres, config.Default().Database), time.Minute,
		postgres.WithClock(func() time.Time { return dbNow.Add(20 * time.Minute) }))
	require.NoError(t, err)
	delay, ok, err = later.NextDue(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.InDelta(t, (40 * time.Minute).Seconds(), delay.Seconds(), 60)
}
