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
