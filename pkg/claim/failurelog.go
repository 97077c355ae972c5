package claim

import (
	"log/slog"
	"sync"
	"time"
)

// failureLogInterval is the least time between two log lines of one failing
// operation. A database outage fails every poll (ten a second at the
// default interval); one line per interval, with the count of failures
// since the last, says as much without flooding the log.
const failureLogInterval = 30 * time.Second

// failureLog throttles the error lines of failing claims, renewals and
// reclaims per operation. It is safe for concurrent use.
type failureLog struct {
	now func() time.Time
	mu  sync.Mutex
	ops map[string]*opFailures
}

type opFailures struct {
	lastLogged time.Time
	since      int // failures not logged since lastLogged
}

func newFailureLog(now func() time.Time) *failureLog {
	return &failureLog{now: now, ops: map[string]*opFailures{}}
}

// record notes a failure of op and logs it unless a line for op was
// written less than failureLogInterval ago.
func (f *failureLog) record(log *slog.Logger, loop, op string, err error) {
	if suppressed, ok := f.allow(op); ok {
		log.Error(op+" failed", "loop", loop, "err", err, "failures_not_logged", suppressed)
	}
}

// allow notes an event of op and reports whether to log it: true unless
// a line for op was written less than failureLogInterval ago, with the
// count of the events not logged since the last line.
func (f *failureLog) allow(op string) (suppressed int, ok bool) {
	f.mu.Lock()
	st, ok := f.ops[op]
	if !ok {
		st = &opFailures{}
		f.ops[op] = st
	}
	now := f.now()
	if ok && now.Sub(st.lastLogged) < failureLogInterval {
		st.since++
		f.mu.Unlock()
		return 0, false
	}
	suppressed = st.since
	st.lastLogged, st.since = now, 0
	f.mu.Unlock()
	return suppressed, true
}
