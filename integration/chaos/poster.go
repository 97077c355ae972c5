package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Poster is an at-least-once webhook sender: every message is posted until
// an ingest replica accepts it, and a tenth of the accepted ones are
// posted once more, as senders that retry after a lost answer do.
type Poster struct {
	// URL returns the inbox URL of a live ingest replica for attempt n.
	URL    func(n int) string
	Ledger *Ledger

	mu       sync.Mutex
	accepted []string
	// answers is the answer log, kept only when CHAOS_LOG_DIR is set.
	answers strings.Builder
	// Restored counts repeats that were stored again (answered 202): each
	// is a second inbox row for one key.
	Restored int
	Repeats  int
}

// Run posts messages from workers goroutines; worker w sends its own keys
// one message at a time, so the order of a key is the order of its posts.
func (p *Poster) Run(seed uint64, messages, workers, keysPerWorker int) error {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := NewRand(seed + uint64(w) + 1)
			for i := range messages / workers {
				m := Message{ID: fmt.Sprintf("w%d-%d", w, i), Key: fmt.Sprintf("w%d-k%d", w, i%keysPerWorker), N: i}
				if err := p.post(m, rng, false); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// post sends m until it is stored; a repeat is sent once more at random.
func (p *Poster) post(m Message, rng *rand.Rand, repeat bool) error {
	body, _ := json.Marshal(m)
	client := http.Client{Timeout: 15 * time.Second}
	deadline := time.Now().Add(2 * time.Minute)
	for attempt := 0; ; attempt++ {
		resp, err := client.Post(p.URL(attempt+rng.IntN(8)), "application/json", bytes.NewReader(body))
		if err == nil {
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			duplicate := resp.StatusCode == http.StatusOK && strings.Contains(string(answer), "duplicate")
			p.answered(m, resp, answer)
			if resp.StatusCode == http.StatusAccepted || duplicate {
				p.stored(m, repeat, resp.StatusCode == http.StatusAccepted)
				if !repeat && rng.IntN(10) == 0 {
					return p.post(m, rng, true)
				}
				return nil
			}
			err = fmt.Errorf("answer %d: %s", resp.StatusCode, answer)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("post %s: %w", m.ID, err)
		}
		time.Sleep(20 * time.Millisecond) // a retry pace while an ingest replica is replaced
	}
}

func (p *Poster) stored(m Message, repeat, created bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if repeat {
		p.Repeats++
		if created {
			p.Restored++
		}
		return
	}
	p.accepted = append(p.accepted, m.ID)
	p.Ledger.Produced(m)
}

// answered notes one answer of ingest in the answer log that a run keeps
// under CHAOS_LOG_DIR: the time, the message, the replica and the answer,
// so a lost message can be traced to the replica and moment that accepted
// it.
func (p *Poster) answered(m Message, resp *http.Response, answer []byte) {
	if os.Getenv("CHAOS_LOG_DIR") == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(&p.answers, "%s %s %s %d %s\n", time.Now().UTC().Format("15:04:05.000000"), m.ID,
		resp.Request.URL.Host, resp.StatusCode, bytes.TrimSpace(answer))
}

// Answers is the answer log (see answered).
func (p *Poster) Answers() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.answers.String()
}

// Accepted returns the idempotency keys that ingest accepted.
func (p *Poster) Accepted() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.accepted...)
}
