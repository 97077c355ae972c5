package chaos

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is what the suite sends: its payload carries the ledger id, the
// ordering key and the position n of the message within its key.
type Message struct {
	ID  string `json:"id"`
	Key string `json:"k"`
	N   int    `json:"n"`
}

// Delivery is one request that the receiver answered with a 2xx.
type Delivery struct {
	Message
	// Replica is the deliver replica that sent it (its webhook path).
	Replica string
	At      time.Time
}

// Fault is one injected fault. Target names the process it hit; an empty
// Target hits every process (a database restart). It lasts from At to End:
// a pause until the process continues, a failover until the new standby
// streams; a kill ends when it starts.
type Fault struct {
	Kind, Target string
	At, End      time.Time
}

// Ledger records what the suite produced, the faults it injected and what
// the receiver accepted. Its methods are safe for concurrent use.
type Ledger struct {
	mu       sync.Mutex
	produced map[string]Message
	// producedAt is when each message was recorded as produced.
	producedAt map[string]time.Time
	first      map[string]Delivery
	// order holds per key the n of the first deliveries, in their order.
	order map[string][]int
	// rank, when set, replaces each n by its place in the order a broker
	// hop handed the key's messages to QueueBox (see RankBy).
	rank    map[string]map[int]int
	repeats []Delivery
	faults  []Fault
	// unexplained pairs the first copy and the repeat of every duplicate
	// that follows no fault, for the failure message.
	unexplained [][2]Delivery
	// failRate is the share of requests the receiver answers with a 500.
	failRate float64
	rng      *rand.Rand
	served   int
}

// NewLedger returns an empty ledger whose receiver fails failRate of the
// requests, drawn from rng.
func NewLedger(failRate float64, rng *rand.Rand) *Ledger {
	return &Ledger{produced: map[string]Message{}, producedAt: map[string]time.Time{}, first: map[string]Delivery{},
		order: map[string][]int{}, failRate: failRate, rng: rng}
}

// Produced records a message that QueueBox accepted (an outbox insert that
// committed, a webhook that got its 202).
func (l *Ledger) Produced(m Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.produced[m.ID] = m
	l.producedAt[m.ID] = time.Now()
}

// ProducedIDs returns the ids of every produced message.
func (l *Ledger) ProducedIDs() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := make([]string, 0, len(l.produced))
	for id := range l.produced {
		ids = append(ids, id)
	}
	return ids
}

// Fault records a fault just before it is injected; the returned func
// records its end, for a fault that lasts.
func (l *Ledger) Fault(kind, target string) (end func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	i := len(l.faults)
	l.faults = append(l.faults, Fault{Kind: kind, Target: target, At: now, End: now})
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.faults[i].End = time.Now()
	}
}

// Delivered is the number of messages that reached the receiver.
func (l *Ledger) Delivered() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.first)
}

// ProducedCount is the number of messages QueueBox accepted.
func (l *Ledger) ProducedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.produced)
}

// AllDelivered reports whether every produced message reached the
// receiver.
func (l *Ledger) AllDelivered() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id := range l.produced {
		if _, ok := l.first[id]; !ok {
			return false
		}
	}
	return true
}

// Receiver starts the recording HTTP destination: a deliver replica posts
// to /r/NAME, so every delivery names its sender. It closes when the test
// ends.
func (l *Ledger) Receiver(t testing.TB) string {
	srv := httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (l *Ledger) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var m Message
	if err == nil {
		err = json.Unmarshal(body, &m)
	}
	if err != nil || m.ID == "" {
		http.Error(w, "not a ledger message", http.StatusBadRequest)
		return
	}
	if !l.accept(Delivery{Message: m, Replica: strings.TrimPrefix(r.URL.Path, "/r/"), At: time.Now()}) {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// accept decides the answer and, for a 2xx, records the delivery before
// the answer leaves: a sender killed after this point has delivered.
func (l *Ledger) accept(d Delivery) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.served++
	if l.rng.Float64() < l.failRate {
		return false
	}
	if _, seen := l.first[d.ID]; seen {
		l.repeats = append(l.repeats, d)
		return true
	}
	l.first[d.ID] = d
	l.order[d.Key] = append(l.order[d.Key], d.N)
	return true
}
