package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
		err := db.scan(t, `SELECT state FROM outbox`, nil, &state)
		return err == nil && state == "sent"
	}, 30*time.Second, 20*time.Millisecond)
	require.Len(t, rc.Requests(), 2, "delivered again by the survivor")
	require.Equal(t, rc.Requests()[0].Header.Get("X-Message-Id"), rc.Requests()[1].Header.Get("X-Message-Id"))
	// The reclaim step counts after its statement returned, and the
	// survivor may have claimed and sent the row before that.
	waitSample(t, survivor, `queuebox_outbox_messages_reclaimed_total`, func(v float64) bool { return v >= 1 })
	require.Equal(t, 0, survivor.terminate(t, 40*time.Second))
}

var sampleLine = regexp.MustCompile(`(?m)^([a-z_]+(?:\{[^}]*\})?) ([0-9.eE+-]+)$`)

// sample returns the value of one sample line of a scrape.
func sample(t *testing.T, scrape, name string) float64 {
	t.Helper()
	v, err := sampleValue(scrape, name)
	require.NoError(t, err)
	return v
}

func sampleValue(scrape, name string) (float64, error) {
	for _, m := range sampleLine.FindAllStringSubmatch(scrape, -1) {
		if m[1] == name {
			return strconv.ParseFloat(m[2], 64)
		}
	}
	return 0, fmt.Errorf("no sample %s in the scrape", name)
}

// waitSample scrapes p until the sample name satisfies ok. Counters move
// after the write they count is visible, so a test that has just seen a
// row's state may scrape a moment before its counter moves.
func waitSample(t *testing.T, p *process, name string, ok func(v float64) bool) {
	t.Helper()
	var last atomic.Value
	last.Store("no scrape yet")
	reached := assert.Eventually(t, func() bool {
		resp, err := http.Get(p.url("/metrics"))
		if err != nil {
			last.Store(err.Error())
			return false
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			last.Store(err.Error())
			return false
		}
		v, err := sampleValue(string(b), name)
		if err != nil {
			last.Store(err.Error())
			return false
		}
		last.Store(strconv.FormatFloat(v, 'g', -1, 64))
		return ok(v)
	}, 30*time.Second, 20*time.Millisecond)
	if !reached {
		t.Fatalf("sample %s of %s never satisfied the wait; last scrape: %v", name, p.name, last.Load())
	}
}
