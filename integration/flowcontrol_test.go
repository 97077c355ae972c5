package integration

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// twoDestinations routes topic slow.* to destination slow and every
// other topic to fast.
func twoDestinations(env map[string]string, slowURL, fastURL string) map[string]string {
	return with(env,
		"QUEUEBOX_DESTINATIONS_SLOW_TYPE", "http",
		"QUEUEBOX_DESTINATIONS_SLOW_BASEURL", slowURL,
		"QUEUEBOX_DESTINATIONS_FAST_TYPE", "http",
		"QUEUEBOX_DESTINATIONS_FAST_BASEURL", fastURL,
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "slow.*",
		"QUEUEBOX_ROUTES_0_DESTINATION", "slow",
		"QUEUEBOX_ROUTES_1_TOPICPATTERN", "**",
		"QUEUEBOX_ROUTES_1_DESTINATION", "fast",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20",
	)
}

// insertRows writes n rows of topic, each with its own key, in one
// statement.
func insertRows(t *testing.T, db database, topic string, n int) {
	t.Helper()
	_, err := db.connect(t).Exec(context.Background(),
		`INSERT INTO outbox (topic, key, payload, max_attempts)
		 SELECT $1::text, $1::text || '-' || g, '{}', 100 FROM generate_series(1, $2::int) g`, topic, n)
	require.NoError(t, err)
}

// countState counts the outbox rows of a topic prefix in a state, on a
// connection of its own that it closes: the tests poll it, and a
// connection kept until the test ends for each poll would use up the
// server's connections on a slow machine.
func countState(t *testing.T, db database, topicPrefix, state string) int {
	t.Helper()
	var n int
	require.NoError(t, db.scan(t, `SELECT count(*) FROM outbox WHERE topic LIKE $1 || '%' AND state = $2`,
		[]any{topicPrefix, state}, &n))
	return n
}

// TestRetryAfterPausesItsDestinationOnly: a 429 with Retry-After: 3
// holds back every publish to that destination for at least 3 s, the
// row's retry and the other rows alike, while another destination
// delivers all its rows during the pause.
func TestRetryAfterPausesItsDestinationOnly(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	slow := brokertest.NewHTTPReceiver(t, func(r brokertest.HTTPRequest) brokertest.Answer {
		if r.Seq == 0 {
			return brokertest.Answer{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"3"}}}
		}
		return brokertest.Answer{}
	})
	fast := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusOK))
	env := with(twoDestinations(db.env(), slow.URL, fast.URL), "QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "10")
	startServing(t, "deliver", env)
	insertRows(t, db, "slow.first", 1)
	require.Eventually(t, func() bool { return len(slow.Requests()) == 1 }, 30*time.Second, 10*time.Millisecond)
	refused := slow.Requests()[0].Arrived
	insertRows(t, db, "slow.more", 5)
	insertRows(t, db, "fast.rows", 20)
	require.Eventually(t, func() bool { return countState(t, db, "", "sent") == 26 }, 60*time.Second, 20*time.Millisecond)
	for _, r := range slow.Requests()[1:] {
		require.GreaterOrEqual(t, r.Arrived.Sub(refused), 3*time.Second, "no publish to slow before the pause ends")
	}
	// The fast rows were written after the refusal and delivered within
	// its pause: the pause held back slow alone.
	last := fast.Requests()[len(fast.Requests())-1].Arrived
	require.Less(t, last.Sub(refused), 3*time.Second, "fast delivered during slow's pause")
}

// TestBreakerOfAFailingReceiver: a receiver that answers 500 to every
// request gets failureThreshold requests, then one probe per open
// period; every request spends one attempt and no deferral spends one;
// /health shows the destination degraded and still answers 200. A
// restarted replica starts closed, and once the receiver recovers every
// row is sent.
func TestBreakerOfAFailingReceiver(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	var healthy atomic.Bool
	rc := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(brokertest.HTTPRequest) int {
		if healthy.Load() {
			return http.StatusOK
		}
		return http.StatusInternalServerError
	}))
	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "10",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_MAXINFLIGHT", "2",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD", "3",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_CIRCUITBREAKER_OPENMS", "2000")
	p := startServing(t, "deliver", env)
	insertRows(t, db, "order.created", 10)
	waitSample(t, p, `queuebox_destination_circuit_state{destination="webhook"}`, func(v float64) bool { return v == 2 })
	opened := time.Now()
	require.Len(t, rc.Requests(), 3, "failureThreshold requests open the breaker")
	waitSample(t, p, `queuebox_destination_deferred_total{destination="webhook",reason="circuit_open"}`,
		func(v float64) bool { return v >= 7 })

	resp, err := http.Get(p.url("/health/ready"))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "an open breaker is no readiness failure")
	require.Contains(t, string(body), `"destination.webhook":{"status":"degraded"`)

	// Probes: the first after 2 s, the next after 4 s more (doubled).
	require.Eventually(t, func() bool { return len(rc.Requests()) >= 5 }, 60*time.Second, 20*time.Millisecond)
	elapsed := time.Since(opened)
	// Open periods of 2, 4, 8 s...: the number of probes that fit.
	probes, at := 0, 2*time.Second
	for period := 2 * time.Second; at <= elapsed+time.Second; period *= 2 {
		probes++
		at += 2 * period
	}
	require.LessOrEqual(t, len(rc.Requests()), 3+probes, "one probe per open period")

	// The attempt of a request is written after its answer: compare once
	// the replica has stopped, with every outcome written.
	require.Equal(t, 0, p.terminate(t, 40*time.Second))
	before := len(rc.Requests())
	require.Equal(t, before, sumAttempts(t, db), "every request spent one attempt, no deferral did")
	healthy.Store(true)
	restarted := startServing(t, "deliver", env)
	waitSample(t, restarted, `queuebox_destination_circuit_state{destination="webhook"}`, func(v float64) bool { return v == 0 })
	require.Eventually(t, func() bool { return countState(t, db, "order", "sent") == 10 }, 60*time.Second, 20*time.Millisecond)
	require.Equal(t, before+10, len(rc.Requests()), "the restarted replica starts closed and sends every row once")
}

func sumAttempts(t *testing.T, db database) int {
	t.Helper()
	var n int
	require.NoError(t, db.connect(t).QueryRow(context.Background(), `SELECT coalesce(sum(attempt), 0) FROM outbox`).Scan(&n))
	return n
}

// TestHangingReceiverHoldsOnlyItsSlots: a receiver that never answers
// (timeoutMs 5000) holds at most maxInFlight publishes, and 500 rows of a
// second destination are delivered meanwhile.
func TestHangingReceiverHoldsOnlyItsSlots(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	var open, peak atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	hang := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(brokertest.HTTPRequest) int {
		n := open.Add(1)
		defer open.Add(-1)
		for old := peak.Load(); n > old && !peak.CompareAndSwap(old, n); old = peak.Load() {
		}
		<-release
		return http.StatusOK
	}))
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	fast := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusOK))
	env := with(twoDestinations(db.env(), hang.URL, fast.URL),
		"QUEUEBOX_DESTINATIONS_SLOW_TIMEOUTMS", "5000",
		"QUEUEBOX_DESTINATIONS_SLOW_FLOWCONTROL_MAXINFLIGHT", "2",
		"QUEUEBOX_DESTINATIONS_SLOW_FLOWCONTROL_CIRCUITBREAKER_ENABLED", "false")
	p := startServing(t, "deliver", env)
	insertRows(t, db, "slow.rows", 50)
	require.Eventually(t, func() bool { return open.Load() == 2 }, 30*time.Second, 10*time.Millisecond)
	start := time.Now()
	insertRows(t, db, "fast.rows", 500)
	require.Eventually(t, func() bool { return countState(t, db, "fast", "sent") == 500 }, 60*time.Second, 20*time.Millisecond)
	t.Logf("500 rows of fast delivered in %s while slow hangs", time.Since(start))
	require.Less(t, time.Since(start), 20*time.Second, "fast is not held back by slow (generous bound for a busy machine)")
	require.LessOrEqual(t, peak.Load(), int32(2), "slow holds at most maxInFlight publishes")
	waitSample(t, p, `queuebox_destination_deferred_total{destination="slow",reason="in_flight"}`, func(v float64) bool { return v > 0 })
	once.Do(func() { close(release) })
}

// TestRateLimitHolds: ratePerSecond 50 holds within 10 % over a 10 s
// window of a deep backlog (493 measured with a load average of 18 on the
// 2-core build machine).
func TestRateLimitHolds(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusOK))
	env := with(destinationEnv(db.env(), rc.URL), "QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_RATEPERSECOND", "50")
	startServing(t, "deliver", env)
	insertRows(t, db, "order.created", 1500)
	require.Eventually(t, func() bool { return len(rc.Requests()) >= 50 }, 30*time.Second, 10*time.Millisecond)
	from := time.Now()
	to := from.Add(10 * time.Second)
	require.Eventually(t, func() bool { return time.Now().After(to.Add(time.Second)) }, 30*time.Second, 50*time.Millisecond)
	n := 0
	for _, r := range rc.Requests() {
		if !r.Arrived.Before(from) && r.Arrived.Before(to) {
			n++
		}
	}
	t.Logf("%d publishes in 10 s at ratePerSecond 50", n)
	require.LessOrEqual(t, n, 550, "never above the rate by more than 10 %")
	// The limiter promises the ceiling. The floor only catches a limiter
	// that throttles well below its rate: with the cores kept busy by
	// another process a run measured 444, short for reasons outside it.
	require.GreaterOrEqual(t, n, 400, "and not far below it")
}

// TestTwoReplicasKeepOrderThroughDeferrals: two replicas deliver keyed
// rows to a receiver that answers 429 with Retry-After: 1 now and then,
// under a rate limit and a small in-flight cap, so many rows are
// deferred. Every key still reaches the receiver in insert order, and the
// publishes in flight never pass the two replicas' caps together.
func TestTwoReplicasKeepOrderThroughDeferrals(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	var mu sync.Mutex
	seen := map[string][]int{}
	var open, peak atomic.Int32
	rc := brokertest.NewHTTPReceiver(t, func(r brokertest.HTTPRequest) brokertest.Answer {
		n := open.Add(1)
		defer open.Add(-1)
		for old := peak.Load(); n > old && !peak.CompareAndSwap(old, n); old = peak.Load() {
		}
		if r.Seq%11 == 5 {
			return brokertest.Answer{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"1"}}}
		}
		var body struct {
			Key string `json:"key"`
			N   int    `json:"n"`
		}
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
			t.Errorf("body %q: %v", r.Body, err)
		}
		mu.Lock()
		seen[body.Key] = append(seen[body.Key], body.N)
		mu.Unlock()
		return brokertest.Answer{Delay: 5 * time.Millisecond}
	})
	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_MAXINFLIGHT", "2",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_RATEPERSECOND", "60",
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "10")
	a := startServing(t, "deliver", env)
	b := startServing(t, "deliver", env)
	const keys, perKey = 8, 10
	_, err := db.connect(t).Exec(context.Background(),
		`INSERT INTO outbox (topic, key, payload, max_attempts)
		 SELECT 'order.created', 'k' || k, json_build_object('key', 'k' || k, 'n', n)::jsonb, 100
		 FROM generate_series(0, $1::int - 1) n, generate_series(1, $2::int) k ORDER BY n, k`, perKey, keys)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return countState(t, db, "order", "sent") == keys*perKey }, 90*time.Second, 20*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, keys)
	for k, got := range seen {
		require.Len(t, got, perKey, "key %s", k)
		for i := range got {
			require.Equal(t, i, got[i], "key %s in insert order: %v", k, got)
		}
	}
	require.LessOrEqual(t, peak.Load(), int32(4), "each replica holds its own cap of 2")
	for _, p := range []*process{a, b} {
		resp, err := http.Get(p.url("/metrics"))
		require.NoError(t, err)
		scrape, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Contains(t, string(scrape), `queuebox_destination_in_flight{destination="webhook"}`)
	}
}
