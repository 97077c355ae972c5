package integration

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestAuditDeliverShutdownDrainsQueuedRowsWithoutBurningAttempts: rows
// that the poller claimed before a SIGTERM are published during the drain
// window. The publishers must stay open until the drain ends, so none of
// those rows records a failed attempt (or goes dead) because QueueBox
// itself was stopping.
func TestAuditDeliverShutdownDrainsQueuedRowsWithoutBurningAttempts(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	release := make(chan struct{})
	first := make(chan struct{}, 1)
	rc := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(brokertest.HTTPRequest) int {
		select {
		case first <- struct{}{}:
			<-release
		default:
		}
		return http.StatusOK
	}))

	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_OUTBOX_CONCURRENCY", "1",
		"QUEUEBOX_OUTBOX_SHUTDOWNTIMEOUTMS", "20000")
	p := startServing(t, "deliver", env)
	// max_attempts = 0: a single failed attempt during the drain would
	// send a row dead.
	_, err := db.connect(t).Exec(context.Background(),
		`INSERT INTO outbox (topic, payload, max_attempts) SELECT 'order.created', '{}', 0 FROM generate_series(1, 3)`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(rc.Requests()) == 1 }, 30*time.Second, 10*time.Millisecond)
	// All three rows were claimed in one batch; one is in flight, two wait
	// for the single worker.
	requireStates(t, db, map[string]int{"processing": 3})

	done := make(chan int)
	go func() { done <- p.terminate(t, 40*time.Second) }()
	require.Eventually(t, func() bool {
		_, err := http.Get(p.url("/health/live"))
		return err != nil
	}, 30*time.Second, 10*time.Millisecond, "the HTTP server stops first, then the drain starts")
	close(release)
	require.Equal(t, 0, <-done)

	rows, err := db.connect(t).Query(context.Background(), `SELECT state, attempt, coalesce(last_error, '') FROM outbox`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var state, lastError string
		var attempt int
		require.NoError(t, rows.Scan(&state, &attempt, &lastError))
		require.Equal(t, "sent", state, "last_error: %s", lastError)
		require.Equal(t, 0, attempt)
		require.Empty(t, lastError)
	}
	require.NoError(t, rows.Err())
	require.Len(t, rc.Requests(), 3)
}

// requireStates waits until the outbox holds exactly the given number of
// rows per state.
func requireStates(t *testing.T, db database, want map[string]int) {
	t.Helper()
	conn := db.connect(t)
	require.Eventually(t, func() bool {
		rows, err := conn.Query(context.Background(), `SELECT state, count(*) FROM outbox GROUP BY state`)
		if err != nil {
			return false
		}
		defer rows.Close()
		got := map[string]int{}
		for rows.Next() {
			var s string
			var n int
			if rows.Scan(&s, &n) != nil {
				return false
			}
			got[s] = n
		}
		return rows.Err() == nil && len(got) == len(want) && func() bool {
			for k, v := range want {
				if got[k] != v {
					return false
				}
			}
			return true
		}()
	}, 30*time.Second, 10*time.Millisecond)
}
