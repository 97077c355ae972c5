package integration

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestKilledReplicaMidPublish kills one replica with SIGKILL while its
// publish hangs. With a short claimTimeoutMs, the other replica reclaims
// the row, delivers it, and the row ends sent.
func TestKilledReplicaMidPublish(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	hang := make(chan struct{})
	first := make(chan struct{}, 1)
	rc := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(r brokertest.HTTPRequest) int {
		select {
		case first <- struct{}{}:
			<-hang
			return http.StatusOK
		default:
			return http.StatusOK
		}
	}))

	// Registered after the receiver, so it runs before the receiver's
	// Close, which waits for the hanging handler.
	t.Cleanup(func() { close(hang) })
	env := with(destinationEnv(db.env(), rc.URL), "QUEUEBOX_OUTBOX_CLAIMTIMEOUTMS", "1000")
	victim := startServing(t, "deliver", env)
	_, err := db.connect(t).Exec(context.Background(), `INSERT INTO outbox (topic, key, payload) VALUES ('order.created', 'k', '{}')`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(rc.Requests()) == 1 }, 30*time.Second, 10*time.Millisecond)
	victim.kill()

	survivor := startServing(t, "deliver", env)
	require.Eventually(t, func() bool {
		var state string
		err := db.connect(t).QueryRow(context.Background(), `SELECT state FROM outbox`).Scan(&state)
		return err == nil && state == "sent"
	}, 30*time.Second, 20*time.Millisecond)
	require.Len(t, rc.Requests(), 2, "delivered again by the survivor")
	require.Equal(t, rc.Requests()[0].Header.Get("X-Message-Id"), rc.Requests()[1].Header.Get("X-Message-Id"))
	_, metrics := get(t, survivor.url("/metrics"))
	require.GreaterOrEqual(t, sample(t, metrics, `queuebox_outbox_messages_reclaimed_total`), 1.0)
	require.Equal(t, 0, survivor.terminate(t, 40*time.Second))
}

var sampleLine = regexp.MustCompile(`(?m)^([a-z_]+(?:\{[^}]*\})?) ([0-9.eE+-]+)$`)

// sample returns the value of one sample line of a scrape.
func sample(t *testing.T, scrape, name string) float64 {
	t.Helper()
	for _, m := range sampleLine.FindAllStringSubmatch(scrape, -1) {
		if m[1] == name {
			v, err := strconv.ParseFloat(m[2], 64)
			require.NoError(t, err)
			return v
		}
	}
	t.Fatalf("no sample %s in the scrape", name)
	return 0
}
