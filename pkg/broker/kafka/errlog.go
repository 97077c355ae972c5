package kafka

import (
	"log/slog"
	"sync"
	"time"
)

// summaryEvery is how often errorLog sums up the errors it did not log.
const summaryEvery = 30 * time.Second

// errorLog logs the error events of a librdkafka client without flooding:
// while no broker answers, librdkafka reports an error for every
// connection attempt (about 19 a second for one broker). It logs the first
// error after a healthy spell ("down"), then one summary each summaryEvery
// that counts the errors it did not log, and one line when the client
// works again ("up"): a success, or a whole summaryEvery without an error.
// It is safe for concurrent use.
type errorLog struct {
	log  *slog.Logger
	what string // "kafka consumer", "kafka producer"
	now  func() time.Time

	mu         sync.Mutex
	failing    bool
	windowFrom time.Time
	suppressed int
	last       string
}

func newErrorLog(log *slog.Logger, what string) *errorLog {
	return &errorLog{log: log, what: what, now: time.Now}
}

// failed records one error event; text is already redacted.
func (l *errorLog) failed(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.failing {
		l.failing, l.windowFrom, l.suppressed = true, l.now(), 0
		l.log.Warn(l.what+" error; the errors that follow are counted in a summary every 30s until it recovers",
			"err", text)
		return
	}
	l.suppressed++
	l.last = text
	l.summarizeLocked()
}

// ok records a success: a record read or a delivery confirmed.
func (l *errorLog) ok() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failing {
		l.recoveredLocked()
	}
}

// tick writes the summary that is due, if any; the client's loop calls it
// between events so that a summary comes even when the errors stop.
func (l *errorLog) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.summarizeLocked()
}

func (l *errorLog) summarizeLocked() {
	if !l.failing || l.now().Sub(l.windowFrom) < summaryEvery {
		return
	}
	if l.suppressed == 0 {
		l.recoveredLocked()
		return
	}
	l.log.Warn(l.what+" errors suppressed", "count", l.suppressed, "last_err", l.last,
		"window", summaryEvery.String())
	l.windowFrom, l.suppressed, l.last = l.now(), 0, ""
}

func (l *errorLog) recoveredLocked() {
	l.log.Info(l.what+" recovered", "suppressed", l.suppressed)
	l.failing, l.suppressed, l.last = false, 0, ""
}
