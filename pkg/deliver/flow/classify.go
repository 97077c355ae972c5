package flow

import (
	"context"
	"errors"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Classify turns the answer of a publish into its Result. ctx is the
// publish's context: an error after it ended was no attempt of the
// destination. reason is the redacted text of the failure.
func Classify(ctx context.Context, err error, reason string, now time.Time) Result {
	switch {
	case err == nil:
		return Result{}
	case ctx.Err() != nil:
		return Result{Skipped: true}
	case errors.Is(err, queuebox.ErrUndeliverable):
		// The row cannot be sent; the destination was never asked.
		return Result{Skipped: true}
	}
	r := Result{Failed: true, Reason: reason}
	var refusal queuebox.RowRefusal
	if errors.As(err, &refusal) && refusal.RowRefused() {
		r.Failed = false
	}
	var pause queuebox.PauseRequest
	if errors.As(err, &pause) {
		r.Pause, _ = pause.Pause(now)
	}
	return r
}

// Unsent reports whether err is a publish that sent nothing because the
// destination cannot take messages now (queuebox.NotSent), and the pause
// it asks for. Such a row is deferred, not attempted: see Permit.Defer.
func Unsent(err error, now time.Time) (time.Duration, bool) {
	var ns queuebox.NotSent
	if !errors.As(err, &ns) || !ns.Unsent() {
		return 0, false
	}
	var pause queuebox.PauseRequest
	d := DefaultRetryIn
	if errors.As(err, &pause) {
		if p, ok := pause.Pause(now); ok && p > 0 {
			d = p
		}
	}
	return d, true
}
