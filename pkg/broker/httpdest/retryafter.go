package httpdest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

var (
	_ queuebox.PauseRequest = (*Error)(nil)
	_ queuebox.RowRefusal   = (*Error)(nil)
)

// Pause implements queuebox.PauseRequest: the Retry-After of a 429 or 503
// answer, in seconds or as an HTTP date, measured from now. A date in the
// past, a negative number or an unreadable value asks for no pause.
func (e *Error) Pause(now time.Time) (time.Duration, bool) {
	if e.TokenRequest || (e.StatusCode != http.StatusTooManyRequests && e.StatusCode != http.StatusServiceUnavailable) {
		return 0, false
	}
	return ParseRetryAfter(e.RetryAfter, now)
}

// RowRefused implements queuebox.RowRefusal: a 4xx answer other than 408
// and 429 is the destination's verdict on the row, not an outage.
func (e *Error) RowRefused() bool {
	return !e.TokenRequest && e.StatusCode >= 400 && e.StatusCode < 500 &&
		e.StatusCode != http.StatusRequestTimeout && e.StatusCode != http.StatusTooManyRequests
}

// ParseRetryAfter reads a Retry-After value: whole seconds, or an HTTP
// date measured from now. ok is false for an empty, unreadable or past
// value.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		if secs <= 0 {
			return 0, false
		}
		// Beyond any cap a caller applies, and safe from overflow.
		return time.Duration(min(secs, 1<<31)) * time.Second, true
	}
	at, err := http.ParseTime(value)
	if err != nil || !at.After(now) {
		return 0, false
	}
	return at.Sub(now), true
}
