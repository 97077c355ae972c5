package deliver

import (
	"context"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// maxFinishBatch bounds the rows of one outcome statement.
const maxFinishBatch = 500

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
	// patience is how long a failing write is tried again: the lease, the
	// time for which the rows stay ours in the table.
	patience time.Duration
	reqs     chan finishReq
	stopped  chan struct{}
}

type writeFunc func(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error)

type finishReq struct {
	outcome queuebox.Outcome
	// then receives whether the row was still ours, or the write error. It
	// runs on the writer goroutine and must be quick.
	then func(finishResult)
}

type finishResult struct {
	kept bool
	err  error
}

func newFinisher(write, rewrite writeFunc, patience time.Duration, log *slog.Logger) *finisher {
	return &finisher{write: write, rewrite: rewrite, log: log, patience: patience,
		reqs: make(chan finishReq, maxFinishBatch), stopped: make(chan struct{})}
}

// run writes outcomes until stop is closed and every submitted outcome is
// written.
func (f *finisher) run(stop <-chan struct{}) {
	defer close(f.stopped)
	for {
		var first finishReq
		select {
		case first = <-f.reqs:
		case <-stop:
			// The poller closes stop after its drain; write what is left so
			// no outcome that was decided is dropped.
			f.flushRemaining(stop)
			return
		}
		f.flush(f.collect([]finishReq{first}), stop)
	}
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

func (f *finisher) flushRemaining(stop <-chan struct{}) {
	for batch := f.collect(nil); len(batch) > 0; batch = f.collect(nil) {
		f.flush(batch, stop)
	}
}

// flush writes one group, trying a failed statement again until it
// succeeds or the lease ends (see writeWithin).
func (f *finisher) flush(batch []finishReq, stop <-chan struct{}) {
	outcomes := make([]queuebox.Outcome, len(batch))
	for i, r := range batch {
		outcomes[i] = r.outcome
	}
	kept, err := f.writeWithin(outcomes, stop)
	for _, r := range batch {
		if err != nil {
			r.then(finishResult{err: err})
			continue
		}
		r.then(finishResult{kept: kept[r.outcome.Lease.ID]})
	}
}

// Bounds of one outcome write and of the pause between two tries.
const (
	finishTimeout    = 30 * time.Second
	finishFirstPause = 50 * time.Millisecond
	finishMaxPause   = 2 * time.Second
)

// writeWithin writes outcomes, trying again with a growing pause while
// the write fails, for up to the lease: while the database is away the
// rows keep their claim in the table, so a write that succeeds once it
// answers again finishes them without a redelivery and without holding
// their keys until the lease expires. Once stop is closed (the poller
// stops), one more try decides.
func (f *finisher) writeWithin(outcomes []queuebox.Outcome, stop <-chan struct{}) (map[string]bool, error) {
	deadline := time.Now().Add(f.patience)
	pause := finishFirstPause
	write := f.write
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
		kept, err := write(ctx, outcomes)
		cancel()
		write = f.rewrite
		if err == nil {
			return kept, nil
		}
		if attempt == 1 || attempt%10 == 0 {
			f.log.Warn("writing outcomes failed; trying again until the lease ends",
				"rows", len(outcomes), "attempt", attempt, "err", err)
		}
		if time.Now().Add(pause).After(deadline) {
			return nil, err
		}
		select {
		case <-stop:
			ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
			defer cancel()
			return f.rewrite(ctx, outcomes)
		case <-time.After(pause):
		}
		pause = min(2*pause, finishMaxPause)
	}
}

// submit hands an outcome to the writer without waiting; then runs after
// the write.
func (f *finisher) submit(o queuebox.Outcome, then func(finishResult)) {
	f.reqs <- finishReq{outcome: o, then: then}
}
