package integration

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// chaosReceiver is a destination that answers after a random delay and
// fails at random. Each replica posts to its own path (/r/NAME), so the
// receiver knows who sent what. It records, per key, which rows are in
// flight at once and the order of the first successful deliveries.
type chaosReceiver struct {
	*brokertest.HTTPReceiver
	maxDelay time.Duration
	failRate float64

	mu sync.Mutex
	// deliveries counts every request per row id, successes per row id.
	deliveries, successes map[string]int
	// firstOK lists per key the row ids in the order of their first 2xx.
	firstOK map[string][]string
	// okAt holds the time and replica of the first 2xx of each row.
	okAt map[string]flight
	// inFlight holds per key the requests between their arrival and the
	// decision of their answer.
	inFlight map[string]map[*flight]bool
	overlaps []overlap
	failures int
}

type flight struct {
	id, replica string
	start       time.Time
}

// overlap is a request that arrived while another row of its key was in
// flight at the receiver.
type overlap struct {
	key        string
	new, older flight
}

func newChaosReceiver(t *testing.T, maxDelay time.Duration, failRate float64) *chaosReceiver {
	t.Helper()
	c := &chaosReceiver{maxDelay: maxDelay, failRate: failRate,
		deliveries: map[string]int{}, successes: map[string]int{},
		firstOK: map[string][]string{}, okAt: map[string]flight{}, inFlight: map[string]map[*flight]bool{}}
	c.HTTPReceiver = brokertest.NewHTTPReceiver(t, c.answer)
	return c
}

func (c *chaosReceiver) answer(r brokertest.HTTPRequest) brokertest.Answer {
	var payload struct {
		Key string `json:"k"`
	}
	_ = json.Unmarshal([]byte(r.Body), &payload)
	f := &flight{id: r.Header.Get("X-Message-Id"), replica: strings.TrimPrefix(r.Path, "/r/"), start: r.Arrived}
	c.begin(payload.Key, f)
	// Simulated destination latency, not a wait for a condition.
	time.Sleep(time.Duration(rand.Int64N(int64(c.maxDelay) + 1)))
	ok := rand.Float64() >= c.failRate
	// The request leaves the in-flight set before the answer is written:
	// the poller can only move on to the next row of the key after it
	// read the answer.
	c.end(payload.Key, f, ok)
	if !ok {
		return brokertest.Answer{Status: http.StatusInternalServerError}
	}
	return brokertest.Answer{Status: http.StatusOK}
}

func (c *chaosReceiver) begin(key string, f *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deliveries[f.id]++
	if key == "" {
		return
	}
	if c.inFlight[key] == nil {
		c.inFlight[key] = map[*flight]bool{}
	}
	for other := range c.inFlight[key] {
		if other.id != f.id {
			c.overlaps = append(c.overlaps, overlap{key: key, new: *f, older: *other})
		}
	}
	c.inFlight[key][f] = true
}

func (c *chaosReceiver) end(key string, f *flight, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if key != "" {
		delete(c.inFlight[key], f)
	}
	if !ok {
		c.failures++
		return
	}
	c.successes[f.id]++
	if c.successes[f.id] > 1 {
		return
	}
	c.okAt[f.id] = flight{id: f.id, replica: f.replica, start: time.Now()}
	if key != "" {
		c.firstOK[key] = append(c.firstOK[key], f.id)
	}
}

// firstSuccess returns the time and replica of the first 2xx of a row.
func (c *chaosReceiver) firstSuccess(id string) flight {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.okAt[id]
}

// snapshot copies what the assertions read.
func (c *chaosReceiver) snapshot() (deliveries, successes map[string]int, firstOK map[string][]string, overlaps []overlap, failures int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	deliveries, successes, firstOK = map[string]int{}, map[string]int{}, map[string][]string{}
	for k, v := range c.deliveries {
		deliveries[k] = v
	}
	for k, v := range c.successes {
		successes[k] = v
	}
	for k, v := range c.firstOK {
		firstOK[k] = append([]string(nil), v...)
	}
	return deliveries, successes, firstOK, append([]overlap(nil), c.overlaps...), c.failures
}
