package deliver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/alternayte/queuebox/pkg/deliver/flow"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// minPostpone is the shortest pause worth a bulk move. Shorter ones (a
// probe in flight, a full in-flight cap, the rate) defer row by row: their
// rows come back soon anyway.
const minPostpone = 2 * time.Second

// postponer moves the backlog of a paused destination out of the claims.
// A deferral writes one claimed row back to pending; without more, the
// next claims would take the destination's other due rows and defer them
// batch by batch, a claim and an outcome write per batch spent on rows
// that cannot be sent, taken from the other destinations' throughput.
// The claim does not know which destinations are paused (a pause lives in
// each replica), so it cannot skip them itself; instead, once per pause,
// one statement moves the due pending rows of the paused destination to
// the pause's end: the rows routed to it, and the rows not routed yet
// whose topic goes to it alone. The store finds them through the topics
// this poller has routed there, so a topic it never saw is deferred row
// by row until the next pause. Lane order is untouched: the claim orders
// a lane's rows by sequence, and the head stays first.
//
// In the same step, once per pause, the pause is recorded with its reason
// and end (queuebox.PauseRecorder) under this replica's name, so the
// workbench can say why the destination's pending rows wait. It is safe
// for concurrent use.
type postponer struct {
	store queuebox.Postponer // nil: the store has none, rows defer one by one
	// recorder is nil when the store records no pauses.
	recorder queuebox.PauseRecorder
	// replica names this process in the pauses it records.
	replica string
	// topics maps each topic seen to the names of its route's
	// destinations ([]string).
	topics sync.Map
	mu     sync.Mutex
	// until is the end of the last pause moved, per destination.
	until map[string]time.Time
	// moving counts the moves in flight; idle is closed when it is zero
	// (nil until the first move).
	moving int
	idle   chan struct{}
}

func newPostponer(store queuebox.OutboxStore) *postponer {
	pp, _ := store.(queuebox.Postponer)
	rec, _ := store.(queuebox.PauseRecorder)
	return &postponer{store: pp, recorder: rec, replica: replicaName(), until: map[string]time.Time{}}
}

// replicaName is the host name, the process id and a random part: unique
// per process start, so a restarted replica records pauses of its own and
// the old ones simply end.
func replicaName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "deliver"
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// routed records that topic routes to the destinations names.
func (pp *postponer) routed(topic string, names []string) {
	if _, ok := pp.topics.Load(topic); !ok {
		pp.topics.Store(topic, names)
	}
}

// claim says whether the caller should move dest's backlog to until: the
// pause is long enough and no caller moved it to until or later yet.
func (pp *postponer) claim(dest string, d *flow.Deferral, now time.Time) bool {
	if (pp.store == nil && pp.recorder == nil) || d.Until.Sub(now) < minPostpone ||
		(d.Reason != flow.ReasonCircuitOpen && d.Reason != flow.ReasonRetryAfter) {
		return false
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if !d.Until.After(pp.until[dest]) {
		return false
	}
	pp.until[dest] = d.Until
	return true
}

// begin marks a move in flight until the returned func is called.
func (pp *postponer) begin() (end func()) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.moving == 0 {
		pp.idle = make(chan struct{})
	}
	pp.moving++
	return func() {
		pp.mu.Lock()
		defer pp.mu.Unlock()
		if pp.moving--; pp.moving == 0 {
			close(pp.idle)
		}
	}
}

// settled waits until no move is in flight, or ctx ends. The claim waits
// on it: while a paused destination's backlog moves, a claim would take
// the rows the move has not reached yet, and each would then be deferred
// row by row, a claim and an outcome write per batch. A move is one
// statement, once per pause, so the wait is short and rare.
func (pp *postponer) settled(ctx context.Context) error {
	pp.mu.Lock()
	idle, moving := pp.idle, pp.moving > 0
	pp.mu.Unlock()
	if !moving {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// paramsOf lists the topics seen routed to dest, and among them those
// whose route sends a row to dest alone.
func (pp *postponer) paramsOf(dest string, delay time.Duration) queuebox.PostponeParams {
	p := queuebox.PostponeParams{Destination: dest, Delay: delay}
	pp.topics.Range(func(topic, v any) bool {
		names := v.([]string)
		if slices.Contains(names, dest) {
			p.Topics = append(p.Topics, topic.(string))
			if len(names) == 1 {
				p.UnroutedTopics = append(p.UnroutedTopics, topic.(string))
			}
		}
		return true
	})
	return p
}

// postpone records the pause d of dest and moves dest's due backlog to
// its end, once per pause. A failure costs only efficiency (the rows
// defer one by one) or the workbench's word on why they wait.
func (p *Poller) postpone(ctx context.Context, dest string, d *flow.Deferral) {
	now := time.Now()
	if !p.postponer.claim(dest, d, now) {
		return
	}
	p.recordPause(ctx, dest, d, d.Until.Sub(now))
	if p.postponer.store == nil {
		return
	}
	end := p.postponer.begin()
	n, err := p.postponer.store.Postpone(ctx, p.postponer.paramsOf(dest, d.Until.Sub(now)))
	end()
	if err != nil {
		p.opts.Logger.Warn("moving a paused destination's rows out of the claims failed; they are deferred one by one",
			"destination", dest, "err", err)
		return
	}
	p.opts.Logger.Info("paused destination's pending rows moved to the end of the pause",
		"destination", dest, "reason", string(d.Reason), "rows", n, "until", d.Until.UTC())
}

// recordPause records the pause d of dest, lasting pause from now, for
// the workbench. The record is written before the rows move, so a row
// the move reaches is never shown without its reason.
func (p *Poller) recordPause(ctx context.Context, dest string, d *flow.Deferral, pause time.Duration) {
	pp := p.postponer
	if pp.recorder == nil {
		return
	}
	err := pp.recorder.PauseRecord(ctx, queuebox.PauseParams{Destination: dest, Replica: pp.replica,
		Reason: string(d.Reason), Detail: d.Detail, For: pause})
	if err != nil {
		p.opts.Logger.Warn("recording a destination's pause for the workbench failed; its rows show no reason",
			"destination", dest, "err", err)
	}
}
