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
