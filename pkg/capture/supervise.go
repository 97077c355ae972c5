package capture

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/alternayte/queuebox/pkg/backoff"
)

// errStarting is the status before the first stream started.
var errStarting = errors.New("capture is starting")

// Status is the health of a connector as the advisory outbox-capture
// component reports it: "capture is starting" until the first Set. It is
// safe for concurrent use.
type Status struct {
	mu  sync.Mutex
	err error
}

// NewStatus returns a status that reports the start.
func NewStatus() *Status { return &Status{err: errStarting} }

// Check returns the last status set; it never blocks on the connector.
func (s *Status) Check(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Set records the status: nil while the connector reads.
func (s *Status) Set(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// Supervisor is the restart policy every connector shares.
type Supervisor struct {
	Status *Status
	Logger *slog.Logger
	// MinBackoff and MaxBackoff bound the wait after a failed attempt.
	MinBackoff, MaxBackoff time.Duration
	// BeforeAttempt, when set, runs before every attempt (a wake-up of
	// delivery, so that nothing waits for a connector that is down).
	BeforeAttempt func()
}

// Run calls attempt until ctx ends and returns then. A *Fault stops the
// loop: it is reported through Status and the log, and Run waits for ctx
// without trying again, because the fault needs an operator. Any other
// error is reported and retried after a backoff that starts again from
// MinBackoff when the attempt ran longer than MaxBackoff.
func (sv Supervisor) Run(ctx context.Context, attempt func(context.Context) error) {
	retry := backoff.Doubling{Min: sv.MinBackoff, Max: sv.MaxBackoff}
	for {
		if sv.BeforeAttempt != nil {
			sv.BeforeAttempt()
		}
		started := time.Now()
		err := attempt(ctx)
		if ctx.Err() != nil {
			return
		}
		var fault *Fault
		if errors.As(err, &fault) {
			sv.Status.Set(fault)
			sv.Logger.Error("capture stopped; it needs an operator and is not retried", "fault", string(fault.Kind), "err", fault.Error())
			<-ctx.Done()
			return
		}
		if time.Since(started) > sv.MaxBackoff {
			retry.Reset()
		}
		wait := retry.Next()
		sv.Status.Set(fmt.Errorf("capture connector failed, retrying in %s: %w", wait, err))
		sv.Logger.Warn("capture connector failed; delivery continues through SQL", "retry_in_ms", wait.Milliseconds(), "err", err)
		if !backoff.Sleep(ctx, wait) {
			return
		}
	}
}
