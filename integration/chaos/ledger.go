package chaos

import (
	"encoding/json"
	"fmt"
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
	// Replica is the deliver replica that sent it and Dest the destination
	// it went to, both from its path (/r/REPLICA, or /r/REPLICA/DEST in a
	// fan-out); Dest is empty outside a fan-out.
	Replica, Dest string
	// MessageID is the request's X-Message-Id.
	MessageID string
	At        time.Time
}

// copyKey names one message's delivery to one destination: what the
// receiver must get at least once.
type copyKey struct{ ID, Dest string }

// lane is a key and a destination: QueueBox keeps the order of a key per
// destination.
type lane struct{ Key, Dest string }

// Fanout makes the ledger expect every message at each of Destinations
// (the DEST of the receiver's paths) instead of at one destination.
// FailRates sets, per destination, the share of the requests the
// receiver answers with a 500; a destination it leaves out fails the
// ledger's own share. MaxFailuresInARow, when above 0, bounds the 500s
// one message gets in a row at one destination.
type Fanout struct {
	Destinations      []string
	FailRates         map[string]float64
	MaxFailuresInARow int
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
	// dests are the destinations every message must reach: one unnamed
	// destination unless a Fanout names them.
	dests []string
	first map[copyKey]Delivery
	// order holds per lane the n of the first deliveries, in their order;
	// sent, the n of every 2xx delivery, repeats included.
	order, sent map[lane][]int
	// repeatsInPlace makes Check judge sent instead of order (see
	// RepeatsInPlace).
	repeatsInPlace bool
	// rank, when set, replaces each n by its place in the order a broker
	// hop handed the key's messages to QueueBox (see RankBy).
	rank    map[string]map[int]int
	repeats []Delivery
	faults  []Fault
	// unexplained pairs the first copy and the repeat of every duplicate
	// that follows no fault, for the failure message.
	unexplained [][2]Delivery
	// failRate is the share of requests the receiver answers with a 500;
	// failRates overrides it per destination.
	failRate  float64
	failRates map[string]float64
	// maxInARow bounds inARow, the 500s each message got in a row at a
	// destination (see Fanout).
	maxInARow int
	inARow    map[copyKey]int
	rng       *rand.Rand
	// served and refused count the requests and the 500s per destination.
	served, refused map[string]int
}

// NewLedger returns an empty ledger whose receiver fails failRate of the
// requests, drawn from rng.
func NewLedger(failRate float64, rng *rand.Rand) *Ledger {
	return &Ledger{produced: map[string]Message{}, producedAt: map[string]time.Time{}, dests: []string{""},
		first: map[copyKey]Delivery{}, order: map[lane][]int{}, sent: map[lane][]int{}, failRate: failRate, rng: rng,
		served: map[string]int{}, refused: map[string]int{}, inARow: map[copyKey]int{}}
}

// Fanout makes the ledger expect each message at every destination of f.
// Call it before the receiver serves.
func (l *Ledger) Fanout(f Fanout) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dests = append([]string(nil), f.Destinations...)
	l.failRates = f.FailRates
	l.maxInARow = f.MaxFailuresInARow
}

// RepeatsInPlace makes Check judge the order of every 2xx delivery of a
// lane, repeats included, instead of the first deliveries only: a repeat
// counts as out of order unless it comes directly after the delivery it
// repeats. The claim takes a keyed row only once the row before it in its
// lane is finished, so the only repeat a killed replica can cause is of
// the row it held, before the next row of that lane is sent. A replica
// stopped past its lease is different: continued, it may finish a publish
// after the lane moved on, so the scenarios that pause a replica do not
// ask this. Call it before the receiver serves.
func (l *Ledger) RepeatsInPlace() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.repeatsInPlace = true
}

// Answers describes, per destination, how many requests the receiver
// answered with a 500 and how many it served, for the log.
func (l *Ledger) Answers() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	parts := make([]string, len(l.dests))
	for i, dest := range l.dests {
		name := dest
		if name == "" {
			name = "the destination"
		}
		parts[i] = fmt.Sprintf("%s answered 500 to %d of %d requests", name, l.refused[dest], l.served[dest])
	}
	return strings.Join(parts, ", ")
}

// Destinations is the number of destinations each message must reach.
func (l *Ledger) Destinations() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.dests)
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

// Delivered is the number of first deliveries the receiver recorded: one
// per message and destination.
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
// receiver at each destination.
func (l *Ledger) AllDelivered() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id := range l.produced {
		for _, dest := range l.dests {
			if _, ok := l.first[copyKey{id, dest}]; !ok {
				return false
			}
		}
	}
	return true
}

// Receiver starts the recording HTTP destination: a deliver replica posts
// to /r/NAME (or /r/NAME/DEST, one path per destination of a fan-out), so
// every delivery names its sender and its destination. It closes when the
// test ends.
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
	replica, dest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/r/"), "/")
	d := Delivery{Message: m, Replica: replica, Dest: dest, MessageID: r.Header.Get("X-Message-Id"), At: time.Now()}
	if !l.accept(d) {
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
	l.served[d.Dest]++
	rate, ok := l.failRates[d.Dest]
	if !ok {
		rate = l.failRate
	}
	c := copyKey{d.ID, d.Dest}
	if l.rng.Float64() < rate && (l.maxInARow == 0 || l.inARow[c] < l.maxInARow) {
		l.refused[d.Dest]++
		l.inARow[c]++
		return false
	}
	delete(l.inARow, c)
	ln := lane{d.Key, d.Dest}
	l.sent[ln] = append(l.sent[ln], d.N)
	if _, seen := l.first[c]; seen {
		l.repeats = append(l.repeats, d)
		return true
	}
	l.first[c] = d
	l.order[ln] = append(l.order[ln], d.N)
	return true
}
