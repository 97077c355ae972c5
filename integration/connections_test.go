package integration

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// peakConnections samples the backends of the test's database (all but
// the sampler's own) until stop is closed and returns the largest count.
func peakConnections(t *testing.T, db database, stop <-chan struct{}) <-chan int {
	t.Helper()
	conn := db.connect(t)
	out := make(chan int, 1)
	go func() {
		peak := 0
		for {
			var n int
			err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n)
			if err == nil {
				peak = max(peak, n)
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return out
}

// load posts n webhooks, 8 at a time, and waits until every one is
// delivered, so the pool of each role is as busy as it gets.
func load(t *testing.T, db database, ingestURL string, rc *brokertest.HTTPReceiver, n int) {
	t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			code, body, _ := post(t, ingestURL, fmt.Sprintf(`{"id":"evt_%d","type":"t"}`, i))
			require.Equal(t, http.StatusAccepted, code, body)
		}()
	}
	wg.Wait()
	require.Eventually(t, func() bool { return len(rc.Requests()) >= n }, 120*time.Second, 20*time.Millisecond)
}

// TestConnectionsOfEachShape measures the PostgreSQL connections of one
// queuebox process and of the four role binaries under the same load:
// one process stays within database.poolSize plus the LISTEN connection
// of the wake listener; the split shape opens a pool per binary. (Capture
// adds its replication, lock and two-connection pool: the queuebox dev
// test counts those on a server with wal_level=logical.)
func TestConnectionsOfEachShape(t *testing.T) {
	t.Parallel()
	const poolSize, messages = 4, 200
	shape := func(t *testing.T, roles []string) int {
		db := newDatabase(t)
		rc := brokertest.NewHTTPReceiver(t, nil)
		env := with(stripeEnv(destinationEnv(db.env(), rc.URL)),
			"QUEUEBOX_DATABASE_POOLSIZE", fmt.Sprint(poolSize),
			// Deliver listens for capture's wake-ups; capture itself runs
			// elsewhere (outbox.capture.enabled stays false here).
			"QUEUEBOX_OUTBOX_CAPTURE_MODE", "postgres-logical")
		stop := make(chan struct{})
		peak := peakConnections(t, db, stop)
		var ingest *process
		for _, role := range roles {
			p := startServing(t, role, env)
			p.waitHTTP(t, "/health/ready", http.StatusOK)
			if role == "queuebox" || role == "ingest" {
				ingest = p
			}
		}
		load(t, db, ingest.url("/inbox/stripe"), rc, messages)
		close(stop)
		return <-peak
	}
	single := shape(t, []string{"queuebox"})
	split := shape(t, []string{"ingest", "relay", "deliver", "capture"})
	t.Logf("peak connections under load: queuebox %d, four role binaries %d (poolSize %d)", single, split, poolSize)
	require.LessOrEqual(t, single, poolSize+1, "one pool and the LISTEN connection")
	require.LessOrEqual(t, split, 4*poolSize+1, "a pool per binary and deliver's LISTEN connection")
	require.Greater(t, split, poolSize+1, "the split shape opens more than one pool")
}
