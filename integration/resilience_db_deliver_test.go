package integration

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestDeliverDrainsABacklogThroughADatabaseOutage cuts the database off
// from queuebox-deliver while it drains a backlog of keyed and unkeyed
// rows: first it refuses connections, then it terminates the sessions
// again and again. Readiness reports the database and the poller down
// during the block and healthy after; every row ends sent, the receiver
// saw every id, each key's first deliveries keep the outbox order, and
// the process never stops.
func TestDeliverDrainsABacklogThroughADatabaseOutage(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, brokertest.Static(brokertest.Answer{Delay: 20 * time.Millisecond}))

	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_OUTBOX_CLAIMTIMEOUTMS", "3000",
		"QUEUEBOX_OUTBOX_BATCHSIZE", "10",
		"QUEUEBOX_OUTBOX_CONCURRENCY", "4")
	deliver := startServing(t, "deliver", env)
	const rows = 400
	// Keys: a fifth NULL, a fifth empty (both unkeyed), the rest over 7 keys.
	_, err := db.connect(t).Exec(context.Background(), `
		INSERT INTO outbox (topic, key, payload)
		SELECT 'order.created', CASE g % 5 WHEN 0 THEN NULL WHEN 1 THEN '' ELSE 'k' || (g % 7) END,
		       jsonb_build_object('n', g)
		FROM generate_series(1, $1::int) g ORDER BY g`, rows)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(rc.Requests()) >= 30 }, 30*time.Second, 10*time.Millisecond)

	cut := newOutage(t, db)
	cut.block()
	waitDown(t, deliver, "database", "outbox-poller")
	time.Sleep(2 * time.Second) // the length of the outage
	cut.unblock()
	stop := cut.storm(100 * time.Millisecond)
	time.Sleep(1500 * time.Millisecond) // the length of the termination storm
	stop()

	waitSent(t, db, rows)
	waitHealthy(t, deliver)
	requireRunning(t, deliver)
	requireLogged(t, deliver, "claim failed")
	requireEveryIDInKeyOrder(t, db, rc.Requests(), rows)
}

// waitSent waits until the outbox holds want rows, all sent.
func waitSent(t *testing.T, db database, want int) {
	t.Helper()
	var sent, all int
	require.Eventually(t, func() bool {
		c, err := pgx.Connect(context.Background(), db.URL)
		if err != nil {
			return false
		}
		defer c.Close(context.Background())
		err = c.QueryRow(context.Background(),
			`SELECT count(*) FILTER (WHERE state = 'sent'), count(*) FROM outbox`).Scan(&sent, &all)
		return err == nil && sent == want && all == want
	}, 60*time.Second, 100*time.Millisecond, "rows sent: %d of %d", &sent, &all)
}

// requireEveryIDInKeyOrder checks that the receiver saw every outbox id at
// least once, and that the first deliveries of each key follow the outbox
// sequence of that key.
func requireEveryIDInKeyOrder(t *testing.T, db database, got []brokertest.HTTPRequest, want int) {
	t.Helper()
	type row struct {
		key string
		seq int64
	}
	byID := map[string]row{}
	rs, err := db.connect(t).Query(context.Background(), `SELECT id::text, coalesce(key, ''), sequence FROM outbox`)
	require.NoError(t, err)
	for rs.Next() {
		var id string
		var r row
		require.NoError(t, rs.Scan(&id, &r.key, &r.seq))
		byID[id] = r
	}
	require.NoError(t, rs.Err())
	require.Len(t, byID, want)

	seen := map[string]bool{}
	last := map[string]int64{}
	for _, r := range got {
		id := r.Header.Get("X-Message-Id")
		row, ok := byID[id]
		require.True(t, ok, "the receiver got an unknown id %q", id)
		if seen[id] {
			continue
		}
		seen[id] = true
		if row.key == "" {
			continue
		}
		require.Greater(t, row.seq, last[row.key], "key %s: row %s delivered first after a later row", row.key, id)
		last[row.key] = row.seq
	}
	require.Len(t, seen, want, "the receiver saw every id")
}
