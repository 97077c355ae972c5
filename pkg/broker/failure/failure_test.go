package failure

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestErrorText(t *testing.T) {
	t.Parallel()
	e := New("nats", "events", "publish to", "orders.created", "timeout (timeout 30s)", context.DeadlineExceeded)
	require.Equal(t, "nats destination events: publish to orders.created: timeout (timeout 30s)", e.Error())
	require.ErrorIs(t, e, context.DeadlineExceeded)
	require.Equal(t, "orders.created", e.Address)

	e = New("kafka", "", "produce to", "", "broker down", nil)
	require.Equal(t, "kafka destination: broker down", e.Error())
	require.Nil(t, errors.Unwrap(e), "the library error is never reachable")
}
