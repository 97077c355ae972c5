package httpdest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"3", 3 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"0", 0, false},
		{"-5", 0, false},
		{"soon", 0, false},
		{"", 0, false},
		{"Tue, 01 Dec 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Tue, 01 Dec 2026 11:59:00 GMT", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseRetryAfter(c.value, now)
		require.Equal(t, c.ok, ok, c.value)
		require.Equal(t, c.want, got, c.value)
	}
}

func TestErrorPauseAndRowRefusal(t *testing.T) {
	t.Parallel()
	now := time.Now()
	cases := []struct {
		name       string
		err        *Error
		pause      bool
		rowRefused bool
	}{
		{"429 with Retry-After", &Error{StatusCode: 429, RetryAfter: "3"}, true, false},
		{"503 with Retry-After", &Error{StatusCode: 503, RetryAfter: "3"}, true, false},
		{"500 with Retry-After", &Error{StatusCode: 500, RetryAfter: "3"}, false, false},
		{"429 without", &Error{StatusCode: 429}, false, false},
		{"token endpoint 429", &Error{StatusCode: 429, RetryAfter: "3", TokenRequest: true}, false, false},
		{"400", &Error{StatusCode: 400}, false, true},
		{"404", &Error{StatusCode: 404}, false, true},
		{"408", &Error{StatusCode: 408}, false, false},
		{"no response", &Error{}, false, false},
	}
	for _, c := range cases {
		_, ok := c.err.Pause(now)
		require.Equal(t, c.pause, ok, c.name)
		require.Equal(t, c.rowRefused, c.err.RowRefused(), c.name)
	}
}
