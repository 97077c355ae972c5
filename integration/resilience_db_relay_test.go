package integration

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRelayForwardsExactlyOnceThroughADatabaseOutage runs queuebox-relay
// while push rows keep arriving and the database terminates its sessions
// again and again, then refuses connections for a while. Readiness shows
// the outage and the recovery; in the end every push row is processed,
// each has exactly one outbox row, no row is left processing, and the
// outbox keeps each aggregate's order.
func TestRelayForwardsExactlyOnceThroughADatabaseOutage(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(db.env(),
		"QUEUEBOX_SOURCES_HOOKS_TYPE", "http",
		"QUEUEBOX_SOURCES_HOOKS_PATH", "/hooks",
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_HOOKS_EVENTTYPEPATH", "$.type",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20",
		"QUEUEBOX_INBOX_RELAY_BATCHSIZE", "5",
		"QUEUEBOX_INBOX_RELAY_CLAIMTIMEOUTMS", "2000")
	relay := startServing(t, "relay", env)
	batch := 0
	insertPush := func(n int) {
		for range n {
			insertPushBatch(t, db, batch)
			batch++
		}
	}
	insertPush(15)

	cut := newOutage(t, db)
	stop := cut.storm(30 * time.Millisecond)
	insertPush(15) // rows keep arriving under the storm
	stop()
	cut.block()
	waitDown(t, relay, "database", "inbox-relay")
	time.Sleep(1500 * time.Millisecond) // the length of the outage
	cut.unblock()
	stop = cut.storm(30 * time.Millisecond)
	insertPush(15)
	stop()

	waitForwardedOnce(t, db, batch*pushBatchSize)
	waitHealthy(t, relay)
	requireRunning(t, relay)
	requireLogged(t, relay, "claim failed")
	requireAggregateOrder(t, db)
}

const pushBatchSize = 20

// insertPushBatch stores one batch of push rows, half of them on five
// aggregates. It connects as the test's writer, which the storm spares
// while it ends the relay's sessions; it still repeats the insert until
// it commits, and the keys make a repeat harmless.
func insertPushBatch(t *testing.T, db database, batch int) {
	t.Helper()
	require.Eventually(t, func() bool {
		c, err := pgx.Connect(context.Background(), db.writerURL())
		if err != nil {
			return false
		}
		defer c.Close(context.Background())
		_, err = c.Exec(context.Background(), `
			INSERT INTO inbox (source, idempotency_key, aggregate_id, event_type, payload, consumption)
			SELECT 'hooks', 'evt-' || $1::int || '-' || g, CASE WHEN g % 2 = 0 THEN 'agg-' || (g % 5) END,
			       'order.created', jsonb_build_object('batch', $1::int, 'n', g), 'push'
			FROM generate_series(1, $2::int) g
			ON CONFLICT (source, idempotency_key) DO NOTHING`, batch, pushBatchSize)
		return err == nil
	}, 30*time.Second, 20*time.Millisecond, "insert batch %d", batch)
}

// waitForwardedOnce waits until every one of want push rows is processed,
// none is pending or processing, and the outbox holds exactly one row per
// inbox row.
func waitForwardedOnce(t *testing.T, db database, want int) {
	t.Helper()
	var processed, outbox, distinct, matched int
	forwarded := assert.Eventually(t, func() bool {
		c, err := pgx.Connect(context.Background(), db.URL)
		if err != nil {
			return false
		}
		defer c.Close(context.Background())
		err = c.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM inbox WHERE state = 'processed'),
			(SELECT count(*) FROM outbox),
			(SELECT count(DISTINCT headers->>'x-inbox-id') FROM outbox),
			(SELECT count(*) FROM inbox i JOIN outbox o ON o.headers->>'x-inbox-id' = i.id::text)`).
			Scan(&processed, &outbox, &distinct, &matched)
		return err == nil && processed == want
	}, 3*time.Minute, 100*time.Millisecond)
	require.True(t, forwarded, "processed %d of %d", processed, want)
	require.Equal(t, want, outbox, "one outbox row per inbox row")
	require.Equal(t, want, distinct, "no inbox row forwarded twice")
	require.Equal(t, want, matched, "every outbox row names its inbox row")
}

// requireAggregateOrder checks that the outbox sequence of each aggregate
// follows the order in which the inbox received its rows.
func requireAggregateOrder(t *testing.T, db database) {
	t.Helper()
	var broken int
	require.NoError(t, db.connect(t).QueryRow(context.Background(), `
		SELECT count(*) FROM (
			SELECT o.key, o.sequence,
			       lag(i.created_at) OVER w AS prev_at, lag(i.id) OVER w AS prev_id, i.created_at, i.id
			FROM outbox o JOIN inbox i ON o.headers->>'x-inbox-id' = i.id::text
			WHERE o.key IS NOT NULL
			WINDOW w AS (PARTITION BY o.key ORDER BY o.sequence)) s
		WHERE (prev_at, prev_id) > (created_at, id)`).Scan(&broken))
	require.Zero(t, broken, "outbox rows of an aggregate out of the inbox order")
}
