package failure

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRefusalAsksForAPause(t *testing.T) {
	t.Parallel()
	d, ok := New("nats", "bus", "publish to", "orders", "stream full", ErrRefused).Pause(time.Now())
	require.True(t, ok)
	require.Equal(t, RefusalPause, d)
	_, ok = New("nats", "bus", "publish to", "orders", "timeout", context.DeadlineExceeded).Pause(time.Now())
	require.False(t, ok)
}

// A blocked connection pauses like any refusal, and only it sent nothing.
func TestBlockedIsAnUnsentRefusal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		cause  error
		pause  bool
		unsent bool
	}{
		{"blocked", ErrBlocked, true, true},
		{"refused", ErrRefused, true, false},
		{"timeout", context.DeadlineExceeded, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := New("rabbitmq", "bus", "", "", "x", tc.cause)
			_, ok := e.Pause(time.Now())
			require.Equal(t, tc.pause, ok)
			require.Equal(t, tc.unsent, e.Unsent())
		})
	}
}
