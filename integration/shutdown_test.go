package integration

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestShutdownLeavesWorkInFlightProcessing sends SIGTERM while a publish
// hangs: the process waits outbox.shutdownTimeoutMs for it, leaves the row
// processing for the reclaim, and exits 0.
func TestShutdownLeavesWorkInFlightProcessing(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	rc.Hold()
	env := with(destinationEnv(db.env(), rc.URL), "QUEUEBOX_OUTBOX_SHUTDOWNTIMEOUTMS", "500")
	p := startServing(t, "deliver", env)
	_, err := db.connect(t).Exec(context.Background(), `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{}')`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(rc.Requests()) == 1 }, 30*time.Second, 10*time.Millisecond)
	require.Equal(t, 0, p.terminate(t, 30*time.Second))
	var state string
	require.NoError(t, db.connect(t).QueryRow(context.Background(), `SELECT state FROM outbox`).Scan(&state))
	require.Equal(t, "processing", state)
}

// TestShutdownLetsAPublishFinish: a publish that answers within the
// shutdown timeout completes and its row ends sent.
func TestShutdownLetsAPublishFinish(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	rc.Hold()
	env := with(destinationEnv(db.env(), rc.URL), "QUEUEBOX_OUTBOX_SHUTDOWNTIMEOUTMS", "20000")
	p := startServing(t, "deliver", env)
	_, err := db.connect(t).Exec(context.Background(), `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{}')`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(rc.Requests()) == 1 }, 30*time.Second, 10*time.Millisecond)
	done := make(chan int)
	go func() { done <- p.terminate(t, 40*time.Second) }()
	// The HTTP server stops first; once it refuses connections the poller
	// is draining and the publish is still open.
	require.Eventually(t, func() bool {
		_, err := http.Get(p.url("/health/live"))
		return err != nil
	}, 30*time.Second, 10*time.Millisecond)
	rc.Release()
	require.Equal(t, 0, <-done)
	var state string
	require.NoError(t, db.connect(t).QueryRow(context.Background(), `SELECT state FROM outbox`).Scan(&state))
	require.Equal(t, "sent", state)
}
