package source

import (
	"context"
	"time"

	"github.com/alternayte/queuebox/pkg/backoff"
)

// Reconnect is the loop of a broker source that keeps a session with its
// broker: it runs Session, and after a failed one waits a backoff of
// MinBackoff doubling to MaxBackoff (back to MinBackoff after a session
// that got to consume) before the next.
type Reconnect struct {
	// Session connects and consumes until ctx ends or the session fails.
	// It reports whether it got to consume, and why it ended. Required.
	Session func(ctx context.Context) (consumed bool, err error)
	// Failed hears of every failed session, with the wait before the next
	// (for the health check and the log). A non-nil error, a failure that
	// no retry mends, ends Run with that error. Required.
	Failed func(err error, retryIn time.Duration) error
	// MinBackoff and MaxBackoff bound the wait. Default 1 s and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// Wake, when not nil, ends a wait early: the client reconnected by
	// itself.
	Wake <-chan struct{}
}

// Run runs sessions until ctx ends (it then returns nil) or Failed stops
// it.
func (r Reconnect) Run(ctx context.Context) error {
	b := backoff.Doubling{Min: r.MinBackoff, Max: r.MaxBackoff}
	if b.Min <= 0 {
		b.Min = DefaultMinBackoff
	}
	if b.Max <= 0 {
		b.Max = DefaultMaxBackoff
	}
	for {
		consumed, err := r.Session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if consumed {
			b.Reset()
		}
		retryIn := b.Next()
		if stop := r.Failed(err, retryIn); stop != nil {
			return stop
		}
		if !Wait(ctx, retryIn, r.Wake) {
			return nil
		}
	}
}

// Wait waits d, less when wake fires (a nil wake never does), and
// reports false when ctx ended first.
func Wait(ctx context.Context, d time.Duration, wake <-chan struct{}) bool {
	if wake == nil {
		return backoff.Sleep(ctx, d)
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-wake:
			cancel()
		case <-wctx.Done():
		}
	}()
	backoff.Sleep(wctx, d)
	cancel()
	<-done
	return ctx.Err() == nil
}
