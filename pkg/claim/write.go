package claim

import (
	"context"
	"errors"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// patienceShare bounds the pause of a WriteRetry to a twentieth of its
// Patience (see WriteRetry).
const patienceShare = 20

// Defaults of a WriteRetry.
const (
	DefaultWriteTimeout = 30 * time.Second
	DefaultFirstPause   = 50 * time.Millisecond
	DefaultMaxPause     = 2 * time.Second
)

// Write is one try of a fenced write. It returns the ids of the rows it
// changed: a lease missing from the answer was lost. ctx bounds the try.
type Write func(ctx context.Context) (map[string]bool, error)

// Clock is the time a WriteRetry paces itself by. Tests pass a fake so
// that pauses pass at once; nil means the wall clock.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// WriteRetry tries a failing fenced write again, with a pause that
// doubles from FirstPause up to MaxPause, and never above a twentieth of
// Patience, for up to Patience: the lease, the time for which the claimed
// rows stay ours in the table. While the database is away the rows keep
// their claim, so a write that succeeds once the database answers again
// finishes them without a redelivery and without holding their keys
// until the lease expires. The cap keeps the tries close together near
// the end of a short lease: a database restart takes a good part of a
// lease of a few seconds, and a pause of seconds would let the leases
// run out after the database came back and before the next try.
//
// A WriteRetry is a value; one may serve any number of goroutines.
type WriteRetry struct {
	Patience   time.Duration
	FirstPause time.Duration // zero: DefaultFirstPause; at most Patience/20
	MaxPause   time.Duration // zero: DefaultMaxPause; at most Patience/20
	Timeout    time.Duration // bound of one try; zero: DefaultWriteTimeout
	Clock      Clock         // nil: the wall clock
}

// Do runs first, then again for every later try: a try that failed may
// have committed without its answer, and again is the write that also
// counts such rows as written (for a write that cannot tell, pass first
// twice). failed hears of every failed try, numbered from 1, on the
// calling goroutine.
//
// Do returns the answer of the first try that succeeds, or the last error
// once the next pause would pass Patience. An error that matches
// queuebox.ErrRefusedValue ends Do at once: the same rows fail on every
// try, and the caller must take the offending rows out instead. Each try runs under its own
// Timeout and keeps ctx's values but not its cancellation. Once ctx is
// done, no pause is waited out: one more try (with again) decides, and Do
// returns its answer.
func (r WriteRetry) Do(ctx context.Context, first, again Write, failed func(attempt int, err error)) (map[string]bool, error) {
	r = r.withDefaults()
	deadline := r.Clock.Now().Add(r.Patience)
	pause := r.FirstPause
	write := first
	for attempt := 1; ; attempt++ {
		kept, err := r.try(ctx, write)
		if err == nil {
			return kept, nil
		}
		failed(attempt, err)
		if errors.Is(err, queuebox.ErrRefusedValue) {
			// The database refused a value of the rows themselves: every
			// try would fail the same way.
			return nil, err
		}
		write = again
		if r.Clock.Now().Add(pause).After(deadline) {
			return nil, err
		}
		if !r.wait(ctx, pause) {
			if kept, err = r.try(ctx, again); err != nil {
				failed(attempt+1, err)
				return nil, err
			}
			return kept, nil
		}
		pause = min(2*pause, r.MaxPause)
	}
}

func (r WriteRetry) withDefaults() WriteRetry {
	if r.FirstPause <= 0 {
		r.FirstPause = DefaultFirstPause
	}
	if r.MaxPause <= 0 {
		r.MaxPause = DefaultMaxPause
	}
	if most := r.Patience / patienceShare; most > 0 {
		r.MaxPause = min(r.MaxPause, most)
		r.FirstPause = min(r.FirstPause, most)
	}
	if r.Timeout <= 0 {
		r.Timeout = DefaultWriteTimeout
	}
	if r.Clock == nil {
		r.Clock = wallClock{}
	}
	return r
}

// try runs one write that a cancelled ctx does not cut short: the write
// decides the fate of rows that may already have been worked.
func (r WriteRetry) try(ctx context.Context, write Write) (map[string]bool, error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.Timeout)
	defer cancel()
	return write(wctx)
}

// wait pauses for d and reports false, at once, when ctx is done.
func (r WriteRetry) wait(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	select {
	case <-ctx.Done():
		return false
	case <-r.Clock.After(d):
		return true
	}
}

// LogAttempt reports whether failed try number attempt deserves a log
// line: the first and every tenth, so a write that fails for a whole
// lease writes a few lines, not one per try.
func LogAttempt(attempt int) bool {
	return attempt == 1 || attempt%10 == 0
}
