package postgres

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStartupWaitUsesTheWholeTimeout: the start keeps trying until
// database.startupTimeoutMs ends. A backoff delay longer than the time
// left is cut to it, so the last attempt runs at the end of the timeout
// and a database that answers by then is taken.
func TestStartupWaitUsesTheWholeTimeout(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		left, delay, want time.Duration
		ok                bool
	}{
		{left: 2 * time.Second, delay: time.Second, want: time.Second, ok: true},
		{left: 700 * time.Millisecond, delay: time.Second, want: 700 * time.Millisecond, ok: true},
		{left: time.Millisecond, delay: 5 * time.Second, want: time.Millisecond, ok: true},
		{left: 0, delay: time.Second, ok: false},
		{left: -time.Second, delay: time.Second, ok: false},
	} {
		got, ok := startupWait(tt.left, tt.delay)
		require.Equal(t, tt.ok, ok, "left %v delay %v", tt.left, tt.delay)
		require.Equal(t, tt.want, got, "left %v delay %v", tt.left, tt.delay)
	}
	require.Equal(t, 250*time.Millisecond, attemptBudget(0), "the attempt at the end still gets a moment")
	require.Equal(t, 5*time.Second, attemptBudget(time.Minute))
	require.Equal(t, 2*time.Second, attemptBudget(2*time.Second))
}
