package deliver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

// TestPerKeyOrderAcrossReplicas runs two pollers with concurrency 8 over
// 20 keys against a receiver that answers after a random delay and fails
// at random. Per key, the first successful deliveries must follow insert
// order, and a key must never have two requests in flight.
func TestPerKeyOrderAcrossReplicas(t *testing.T) {
	t.Parallel()
	const keys, perKey = 20, 15
	var (
		mu        sync.Mutex
		inFlight  = map[string]bool{}
		delivered = map[string][]int{} // key -> steps of first successes
		seen      = map[string]bool{}  // message id -> succeeded once
	)
	rc := newReceiver(t, func(r request) int {
		key := r.Header.Get("X-Message-Key")
		mu.Lock()
		if inFlight[key] {
			t.Errorf("key %s has two deliveries in flight", key)
		}
		inFlight[key] = true
		mu.Unlock()
		time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		fail := rand.IntN(5) == 0
		mu.Lock()
		defer mu.Unlock()
		inFlight[key] = false
		if fail {
			return http.StatusInternalServerError
		}
		id := r.Header.Get("X-Message-Id")
		if !seen[id] {
			seen[id] = true
			var body struct{ Step int }
			_ = jsonUnmarshal(r.Body, &body)
			delivered[key] = append(delivered[key], body.Step)
		}
		return http.StatusOK
	})
	e := newEnv(t, rc.URL)
	e.settings.Concurrency = 8
	e.settings.BatchSize = 16
	e.settings.RetryBaseDelay = time.Millisecond
	conn := e.s.Connect(t)
	for step := 1; step <= perKey; step++ {
		for k := 0; k < keys; k++ {
			_, err := conn.Exec(context.Background(), `INSERT INTO outbox (topic, key, payload, max_attempts)
				VALUES ('order.updated', $1, jsonb_build_object('step', $2::int), 50)`, fmt.Sprintf("key-%02d", k), step)
			require.NoError(t, err)
		}
	}
	p1, _ := e.poller(t)
	p2, _ := e.poller(t)
	start(t, p1)
	start(t, p2)
	require.Eventually(t, func() bool {
		var n int
		err := conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE state = 'sent'`).Scan(&n)
		return err == nil && n == keys*perKey
	}, 60*time.Second, 20*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, delivered, keys)
	for key, steps := range delivered {
		want := make([]int, perKey)
		for i := range want {
			want[i] = i + 1
		}
		require.Equal(t, want, steps, "key %s in insert order", key)
	}
}

// TestALostClaimIsCountedAndLeavesTheNewOwnersResult lets a publish outlive
// its lease: another poller reclaims and delivers the row, then the slow
// publish returns. The slow poller's write must fail the fence, count
// queuebox_claims_lost_total{component="outbox"} and leave the row sent by
// the new owner.
func TestALostClaimIsCountedAndLeavesTheNewOwnersResult(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var mu sync.Mutex
	n := 0
	rc := newReceiver(t, func(r request) int {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			<-release // the first owner's publish hangs past its lease
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	// Registered after the receiver, so it runs before the receiver's
	// Close, which waits for the hanging handler.
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock)
	e := newEnv(t, rc.URL)
	e.exec(t, `INSERT INTO outbox (topic, key, payload) VALUES ('order.created', 'k', '{}')`)
	// Long enough that renewals keep a healthy claim alive under load;
	// the first claim is expired by hand below.
	e.settings.ClaimTimeout = 3 * time.Second
	slow, slowMetrics := e.poller(t)
	stopSlow := start(t, slow)
	require.Eventually(t, func() bool { return len(rc.Requests()) == 1 }, 30*time.Second, 5*time.Millisecond)
	// Expire the first claim in the database, as a long pause would.
	e.exec(t, `UPDATE outbox SET lease_expires_at = now() - interval '1 second'`)
	fresh, freshMetrics := e.poller(t)
	start(t, fresh)
	e.waitStates(t, "sent")
	unblock()
	stopSlow()
	rows := e.waitStates(t, "sent")
	require.Equal(t, 0, rows[0].Attempt, "the stale failure did not overwrite the new owner's result")
	require.Equal(t, 1.0, testutil.ToFloat64(slowMetrics.ClaimsLost), "the loss is counted once")
	// Either poller may be the new owner: the slow one still has free
	// workers and its own reclaim step. Both count after their write
	// commits, so the fresh one may still be about to.
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(freshMetrics.Messages.WithLabelValues("sent"))+
			testutil.ToFloat64(slowMetrics.Messages.WithLabelValues("sent")) == 1
	}, 30*time.Second, 5*time.Millisecond, "one sent, counted once")
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(freshMetrics.Reclaimed)+testutil.ToFloat64(slowMetrics.Reclaimed) >= 1
	}, 30*time.Second, 5*time.Millisecond, "the reclaim is counted")
	got := rc.Requests()
	require.Len(t, got, 2)
	require.Equal(t, strconv.Itoa(0), got[1].Header.Get("X-Attempt"))
}
