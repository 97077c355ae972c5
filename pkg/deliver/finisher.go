package deliver

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// maxFinishBatch bounds the rows of one outcome statement.
const maxFinishBatch = 500

// Lingering. Each write takes what arrived during the one before, so at a
// modest rate (a broker that confirms in a few milliseconds) the groups
// stay small and PostgreSQL pays a statement and a commit for every few
// rows: measured on the 2-core build machine, a RabbitMQ drain committed
// ten rows per write and spent 40 % more database CPU per row than a
// faster JetStream drain. A row of a key holds back the key's next row
// until its outcome is written, so such an outcome goes at once; outcomes
// of rows without a key hold back nothing, and for them the writer waits
// up to finishLinger for more, until lingerRows are together. 10 ms rather
// than 2: behind RabbitMQ (about 4,000 rows/s on that machine) the longer
// wait cut deliver's CPU per row by about a tenth and PostgreSQL's by
// about 5 % (six alternating drains each); a faster drain reaches
// lingerRows first and waits less. The wait delays no publish in flight:
// only the outcome's write, during which its row stays processing and
// counts against the poller's room. Nor does the writer wait when no
// other row is on its way to it (every row the poller holds has handed
// over its outcome): company cannot come before the next claim, and at a
// low rate each row would otherwise reach its sent state 10 ms late (the
// commit-to-delivery latency the bench reads from updated_at).
const (
	finishLinger = 10 * time.Millisecond
	lingerRows   = 100
)

// finisher writes outcomes in as few fenced statements as possible: one
// goroutine takes every outcome waiting at the moment it is free and
// writes them together, so under load outcomes commit in groups and
// under light load each commits at once.
type finisher struct {
	write writeFunc
	// rewrite is write for a later try after a failed one: it also counts
	// as written the rows that an earlier try committed unanswered.
	rewrite writeFunc
	log     *slog.Logger
	// retry tries a failing write again for up to the lease, the time for
	// which the rows stay ours in the table.
	retry   claim.WriteRetry
	reqs    chan finishReq
	stopped chan struct{}
	// lingerFor is finishLinger; tests change it.
	lingerFor time.Duration
	// held counts the rows the poller holds, from their claim until their
	// outcome is written (claim.Loop.Held); nil when unknown, and then the
	// writer lingers as if more rows were on their way.
	held func() int
	// unwritten counts the outcomes handed over whose write has not yet
	// run their then: held less unwritten is the rows still on their way.
	unwritten atomic.Int64
}

type writeFunc func(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error)

type finishReq struct {
	outcome queuebox.Outcome
	// holds says another row waits for this write: the row has a key.
	holds bool
	// then receives whether the row was still ours, or the write error. It
	// runs on the writer goroutine and must be quick.
	then func(finishResult)
}

type finishResult struct {
	kept bool
	err  error
}

func newFinisher(write, rewrite writeFunc, patience time.Duration, log *slog.Logger) *finisher {
	return &finisher{write: write, rewrite: rewrite, log: log, retry: claim.WriteRetry{Patience: patience},
		reqs: make(chan finishReq, maxFinishBatch), stopped: make(chan struct{}), lingerFor: finishLinger}
}

// run writes outcomes until stop is done and every submitted outcome is
// written. The end of stop cuts no write short; it only ends the pauses of
// failing writes (see writeWithin).
func (f *finisher) run(stop context.Context) {
	defer close(f.stopped)
	for {
		var first finishReq
		select {
		case first = <-f.reqs:
		case <-stop.Done():
			// The poller stops the finisher after its drain; write what is
			// left so no outcome that was decided is dropped.
			f.flushRemaining(stop)
			return
		}
		f.flush(stop, f.linger(stop, f.collect([]finishReq{first})))
	}
}

// linger adds the requests that arrive within lingerFor to a batch that
// holds back no row, until it has lingerRows or one that holds back a row
// arrives. A batch that holds back a row is returned at once, and so is
// every batch once stop is done.
func (f *finisher) linger(stop context.Context, batch []finishReq) []finishReq {
	for _, r := range batch {
		if r.holds {
			return batch
		}
	}
	if len(batch) >= lingerRows || f.lingerFor <= 0 || !f.moreComing() {
		return batch
	}
	timer := time.NewTimer(f.lingerFor)
	defer timer.Stop()
	for len(batch) < lingerRows {
		select {
		case r := <-f.reqs:
			batch = append(batch, r)
			if r.holds || !f.moreComing() {
				return f.collect(batch)
			}
		case <-timer.C:
			return f.collect(batch)
		case <-stop.Done():
			return batch
		}
	}
	return batch
}

// moreComing says whether a row the poller holds has yet to hand over its
// outcome (one being published, or claimed and waiting for a worker). It
// runs on the writer goroutine, where unwritten only grows while the
// writer lingers.
func (f *finisher) moreComing() bool {
	if f.held == nil {
		return true
	}
	return int64(f.held()) > f.unwritten.Load()
}

// collect adds every request waiting now to batch, up to maxFinishBatch.
func (f *finisher) collect(batch []finishReq) []finishReq {
	for len(batch) < maxFinishBatch {
		select {
		case r := <-f.reqs:
			batch = append(batch, r)
		default:
			return batch
		}
	}
	return batch
}

func (f *finisher) flushRemaining(stop context.Context) {
	for batch := f.collect(nil); len(batch) > 0; batch = f.collect(nil) {
		f.flush(stop, batch)
	}
}

// flush writes one group, trying a failed statement again until it
// succeeds or the lease ends (see writeWithin).
func (f *finisher) flush(stop context.Context, batch []finishReq) {
	outcomes := make([]queuebox.Outcome, len(batch))
	for i, r := range batch {
		outcomes[i] = r.outcome
	}
	kept, err := f.writeWithin(stop, outcomes)
	for _, r := range batch {
		if err != nil {
			r.then(finishResult{err: err})
		} else {
			r.then(finishResult{kept: kept[r.outcome.Lease.ID]})
		}
		f.unwritten.Add(-1)
	}
}

// writeWithin writes outcomes, trying again while the write fails for up
// to the lease, as claim.WriteRetry documents: every try after the first
// goes through rewrite, which also counts as written the rows that an
// earlier try committed unanswered. Once stop is done (the poller stops),
// one more try decides.
func (f *finisher) writeWithin(stop context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	return f.retry.Do(stop,
		func(ctx context.Context) (map[string]bool, error) { return f.write(ctx, outcomes) },
		func(ctx context.Context) (map[string]bool, error) { return f.rewrite(ctx, outcomes) },
		func(attempt int, err error) {
			if claim.LogAttempt(attempt) {
				f.log.Warn("writing outcomes failed; trying again until the lease ends",
					"rows", len(outcomes), "attempt", attempt, "err", err)
			}
		})
}

// submit hands an outcome to the writer without waiting; then runs after
// the write. holds says another row waits for the write (the row has a
// key), so it is not delayed to join a larger group.
func (f *finisher) submit(o queuebox.Outcome, holds bool, then func(finishResult)) {
	f.unwritten.Add(1)
	f.reqs <- finishReq{outcome: o, holds: holds, then: then}
}
