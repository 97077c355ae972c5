package integration

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// convertEnv is the environment of the conversion test: destinations a
// and b, routed by topic, so that a key has one lane per destination,
// and an http source for the inbox.
func convertEnv(env map[string]string, a, b *brokertest.HTTPReceiver) map[string]string {
	return with(env,
		"QUEUEBOX_DESTINATIONS_A_TYPE", "http", "QUEUEBOX_DESTINATIONS_A_BASEURL", a.URL, "QUEUEBOX_DESTINATIONS_A_PATH", "/events",
		"QUEUEBOX_DESTINATIONS_B_TYPE", "http", "QUEUEBOX_DESTINATIONS_B_BASEURL", b.URL, "QUEUEBOX_DESTINATIONS_B_PATH", "/events",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "a.*", "QUEUEBOX_ROUTES_0_DESTINATION", "a",
		"QUEUEBOX_ROUTES_1_TOPICPATTERN", "b.*", "QUEUEBOX_ROUTES_1_DESTINATION", "b",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20",
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "50",
		// The rows of a crashed claimer return to pending within a second
		// (the reclaim runs every fifth of this).
		"QUEUEBOX_OUTBOX_CLAIMTIMEOUTMS", "5000",
		"QUEUEBOX_SOURCES_HOOKS_TYPE", "http", "QUEUEBOX_SOURCES_HOOKS_PATH", "/hooks",
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH", "$.id", "QUEUEBOX_SOURCES_HOOKS_TOPIC", "hooks.in",
		"QUEUEBOX_INBOX_RELAY_ENABLED", "false")
}

// convertRows writes outbox rows n = from..to: the row n has key k<n%5>
// and goes to a when n is even, b when odd, so each (key, destination)
// lane holds rows in n order. Rows up to 100 are final (sent or dead),
// 101 to 110 are processing under a lease that expired (their claimer
// died), the rest pending.
const convertRows = `INSERT INTO outbox (topic, key, destination, payload, state, max_attempts, created_at, updated_at,
		claimed_at, claim_token, lease_expires_at, attempt)
	SELECT CASE WHEN g % 2 = 0 THEN 'a.x' ELSE 'b.x' END, 'k' || (g % 5), CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END,
		json_build_object('n', g)::jsonb,
		CASE WHEN g <= 100 AND g % 10 = 0 THEN 'dead' WHEN g <= 100 THEN 'sent' WHEN g <= 110 THEN 'processing' ELSE 'pending' END,
		100, now() - interval '1 day' + g * interval '1 second', now(),
		CASE WHEN g BETWEEN 101 AND 110 THEN now() - interval '2 minutes' END,
		CASE WHEN g BETWEEN 101 AND 110 THEN gen_random_uuid() END,
		CASE WHEN g BETWEEN 101 AND 110 THEN now() - interval '1 minute' END,
		CASE WHEN g BETWEEN 101 AND 110 THEN 1 ELSE 0 END
	FROM generate_series($1::int, $2::int) g`

// TestConvertPopulatedDatabaseThroughTheBinary converts a populated,
// unpartitioned database with `queuebox migrate partition` while an
// unpartitioned deliver holds claims (its requests to a are held) and an
// application keeps writing. Afterwards the roles start with partitioning
// on, every pending and processing row reaches its destination once and
// in lane order, none of the final rows is sent again, and a key the old
// inbox held is still a duplicate.
func TestConvertPopulatedDatabaseThroughTheBinary(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	ctx := context.Background()
	a, b := brokertest.NewHTTPReceiver(t, nil), brokertest.NewHTTPReceiver(t, nil)
	env := convertEnv(db.env(), a, b)
	code, stdout, stderr := cli(t, env, "migrate")
	require.Equal(t, 0, code, stdout+stderr)
	conn := db.connect(t)
	_, err := conn.Exec(ctx, convertRows, 1, 300)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO inbox (source, idempotency_key, payload, state, created_at)
		SELECT 'hooks', 'evt-' || g, '{}', 'processed', now() - interval '1 day' FROM generate_series(1, 50) g`)
	require.NoError(t, err)

	// deliver, unpartitioned, claims a's rows and waits on a.
	a.Hold()
	first := startServing(t, "deliver", env)
	require.Eventually(t, func() bool { return a.Len() > 0 }, time.Minute, 20*time.Millisecond)

	// An application writes while the conversion runs.
	stopWriting := make(chan struct{})
	var wrote struct {
		sync.Mutex
		last int
		err  error
	}
	var writer sync.WaitGroup
	writer.Go(func() {
		w, err := pgx.Connect(ctx, db.URL)
		if err != nil {
			wrote.err = err
			return
		}
		defer w.Close(ctx)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for n := 1001; ; n++ {
			select {
			case <-stopWriting:
				return
			case <-tick.C:
			}
			_, err := w.Exec(ctx, convertRows, n, n)
			wrote.Lock()
			if err != nil {
				wrote.err = err
			} else {
				wrote.last = n
			}
			wrote.Unlock()
			if err != nil {
				return
			}
		}
	})

	penv := partitionedEnv(env)
	code, stdout, stderr = cli(t, penv, "migrate", "partition")
	close(stopWriting)
	writer.Wait()
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, "ACCESS EXCLUSIVE (blocks)")
	require.NoError(t, wrote.err, "the application's writes go on")
	require.Greater(t, wrote.last, 1000, "the application wrote during the conversion")
	var kinds string
	require.NoError(t, conn.QueryRow(ctx, `SELECT string_agg(relname || ':' || relkind::text, ',' ORDER BY relname)
		FROM pg_class WHERE relname IN ('outbox', 'inbox', 'outbox_legacy', 'inbox_legacy')`).Scan(&kinds))
	require.Equal(t, "inbox:p,inbox_legacy:r,outbox:p,outbox_legacy:r", kinds)

	// A second run finds nothing left to do.
	code, stdout, stderr = cli(t, penv, "migrate", "partition")
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, "already partitioned")

	// The held claims finish on the partitioned table; then the roles
	// start with partitioning on, which the start's check accepts.
	a.Release()
	first.stop(t, time.Minute)
	startServing(t, "deliver", penv)
	ingest := startServing(t, "ingest", penv)

	want := map[int]bool{}
	for n := 101; n <= 300; n++ {
		want[n] = true
	}
	for n := 1001; n <= wrote.last; n++ {
		want[n] = true
	}
	require.Eventually(t, func() bool { return len(accepted(t, a))+len(accepted(t, b)) >= len(want) }, 2*time.Minute, 50*time.Millisecond)
	seen := map[int]int{}
	for _, rc := range []*brokertest.HTTPReceiver{a, b} {
		last := map[int]int{}
		for _, n := range accepted(t, rc) {
			seen[n]++
			require.Greater(t, n, last[n%5], "lane order of key k%d", n%5)
			last[n%5] = n
		}
	}
	require.Len(t, seen, len(want), "every pending and processing row delivered, no final one")
	for n, times := range seen {
		require.True(t, want[n], "row %d was not to be sent", n)
		require.Equal(t, 1, times, fmt.Sprintf("row %d delivered once", n))
	}

	// The inbox still knows the keys of the old table.
	code, body, _ := post(t, ingest.url("/inbox/hooks"), `{"id":"evt-7"}`)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"status":"duplicate"}`, body)
	code, body, _ = post(t, ingest.url("/inbox/hooks"), `{"id":"evt-51"}`)
	require.Equal(t, http.StatusAccepted, code, body)
}
