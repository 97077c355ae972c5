package queuebox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// handle runs the handler of one claimed row in a new transaction and
// completes, retries or dead-letters the row.
func (r *runner) handle(rw *row) {
	ctx, msg := rw.ctx, rw.c.msg
	if ctx.Err() != nil {
		return // lost before it started
	}
	tx, err := r.w.db.BeginTx(ctx, nil)
	if err != nil {
		if !r.stopped(rw, nil) {
			// Nothing ran, so no attempt is spent: the lease expires and
			// a later claim takes the row again.
			r.w.log.error("begin the handler transaction", r.fields(msg, "err", err)...)
		}
		return
	}
	err = r.call(ctx, msg, tx)
	if r.stopped(rw, tx) {
		return
	}
	if err != nil {
		r.fail(rw, tx, err)
		return
	}
	rw.finish()
	ok, err := r.w.store.complete(ctx, tx, rw.c)
	if r.stopped(rw, tx) {
		return
	}
	if err != nil {
		r.fail(rw, tx, fmt.Errorf("complete the message: %w", err))
		return
	}
	if !ok {
		_ = tx.Rollback()
		r.w.log.warn("the completion changed no row: another worker owns the message; rolled the handler's writes back",
			r.fields(msg)...)
		return
	}
	if err := tx.Commit(); err != nil {
		if r.stopped(rw, nil) {
			return
		}
		// The commit failed, so the writes and the completion are gone
		// together; the fenced retry finds the row unless it committed
		// after all, and then changes nothing.
		r.fail(rw, nil, fmt.Errorf("commit the handler transaction: %w", err))
	}
}

// call runs the handler, turning a panic into an error.
func (r *runner) call(ctx context.Context, msg Message, tx *sql.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panic: %v", p)
		}
	}()
	return r.handler(r.traceContext(ctx, msg), msg, tx)
}

// traceContext returns ctx as Options.TraceContext makes it for msg, or
// ctx itself without the hook or without a stored traceparent.
func (r *runner) traceContext(ctx context.Context, msg Message) context.Context {
	hook := r.w.opts.TraceContext
	if hook == nil {
		return ctx
	}
	parent := headerFold(msg.Headers, "traceparent")
	if parent == "" {
		return ctx
	}
	return hook(ctx, parent, headerFold(msg.Headers, "tracestate"))
}

// headerFold returns the header name in any letter case, or "".
func headerFold(headers map[string]string, name string) string {
	if v, ok := headers[name]; ok {
		return v
	}
	for k, v := range headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// stopped reports whether the row's context was cancelled (a lost lease,
// or a shutdown past the grace); it then rolls tx back, logs the cause
// and spends no attempt.
func (r *runner) stopped(rw *row, tx *sql.Tx) bool {
	if rw.ctx.Err() == nil {
		return false
	}
	if tx != nil {
		_ = tx.Rollback()
	}
	cause := context.Cause(rw.ctx)
	if errors.Is(cause, errLeaseLost) {
		r.w.log.warn("lost the lease while the handler ran: rolled its writes back", r.fields(rw.c.msg)...)
	} else {
		r.w.log.warn("cancelled the handler at shutdown: rolled its writes back; the message waits for its lease to expire",
			r.fields(rw.c.msg)...)
	}
	return true
}

// fail rolls tx back and applies the retry policy with a fenced write.
func (r *runner) fail(rw *row, tx *sql.Tx, failure error) {
	if tx != nil {
		_ = tx.Rollback()
	}
	rw.finish()
	msg := rw.c.msg
	action := r.decide(msg, failure)
	reason := SanitizeError(failure)
	// The fenced write outlives a shutdown: the handler has finished, and
	// a lease that has run out makes it change nothing anyway.
	ctx, cancel := context.WithTimeout(r.base, r.w.lease)
	defer cancel()
	var ok bool
	var err error
	if action.dead {
		ok, err = r.w.store.deadLetter(ctx, rw.c, reason)
	} else {
		ok, err = r.w.store.retryLater(ctx, rw.c, action.delay, reason)
	}
	switch {
	case err != nil:
		r.w.log.error("record the failed message; it runs again after its lease expires",
			r.fields(msg, "failure", reason, "err", err)...)
	case !ok:
		r.w.log.warn("the handler failed, and another worker owns the message now", r.fields(msg, "failure", reason)...)
	case action.dead:
		r.w.log.error("the handler failed; dead-lettered the message", r.fields(msg, "failure", reason)...)
	default:
		r.w.log.warn("the handler failed; the message runs again later",
			r.fields(msg, "failure", reason, "delay_ms", action.delay.Milliseconds())...)
	}
}

// decide asks the policy, turning a panic into a retry after a second.
func (r *runner) decide(msg Message, failure error) (action FailureAction) {
	defer func() {
		if p := recover(); p != nil {
			r.w.log.error("the retry policy panicked; retrying the message", r.fields(msg, "panic", fmt.Sprint(p))...)
			action = RetryAfter(defaultBaseDelay)
		}
	}()
	return r.w.opts.RetryPolicy.Decide(msg, failure)
}

// fields are the log fields of a message, then kv.
func (r *runner) fields(msg Message, kv ...any) []any {
	out := []any{"message_id", msg.ID, "source", msg.Source, "attempt", msg.Attempt}
	if msg.CorrelationID != nil {
		out = append(out, "correlation_id", *msg.CorrelationID)
	}
	return append(out, kv...)
}
