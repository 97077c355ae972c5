package deliver

import (
	"context"
	"log/slog"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// maxFinishBatch bounds the rows of one outcome statement.
const maxFinishBatch = 500

// finisher writes outcomes in as few fenced statements as possible: one
// goroutine takes every outcome waiting at the moment it is free and
// writes them together, so under load outcomes commit in groups and
// under light load each commits at once.
type finisher struct {
	write   func(ctx context.Context, outcomes []postgres.Outcome) (map[string]bool, error)
	log     *slog.Logger
	reqs    chan finishReq
	stopped chan struct{}
}

type finishReq struct {
	outcome postgres.Outcome
	// then receives whether the row was still ours, or the write error. It
	// runs on the writer goroutine and must be quick.
	then func(finishResult)
}

type finishResult struct {
	kept bool
	err  error
}

func newFinisher(write func(context.Context, []postgres.Outcome) (map[string]bool, error), log *slog.Logger) *finisher {
	return &finisher{write: write, log: log, reqs: make(chan finishReq, maxFinishBatch), stopped: make(chan struct{})}
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
			f.flushRemaining()
			return
		}
		f.flush(f.collect([]finishReq{first}))
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

func (f *finisher) flushRemaining() {
	for batch := f.collect(nil); len(batch) > 0; batch = f.collect(nil) {
		f.flush(batch)
	}
}

// flush writes one group, retrying a failed statement a few times.
func (f *finisher) flush(batch []finishReq) {
	outcomes := make([]postgres.Outcome, len(batch))
	for i, r := range batch {
		outcomes[i] = r.outcome
	}
	kept, err := claim.RetryWrite(context.Background(), func(ctx context.Context) (map[string]bool, error) {
		return f.write(ctx, outcomes)
	}, func(attempt int, err error) {
		f.log.Warn("writing outcomes failed", "rows", len(outcomes), "attempt", attempt, "err", err)
	})
	for _, r := range batch {
		if err != nil {
			r.then(finishResult{err: err})
			continue
		}
		r.then(finishResult{kept: kept[r.outcome.Lease.ID]})
	}
}

// submit hands an outcome to the writer without waiting; then runs after
// the write.
func (f *finisher) submit(o postgres.Outcome, then func(finishResult)) {
	f.reqs <- finishReq{outcome: o, then: then}
}
