package httpdest

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// timeoutError is what net.Dialer returns when its own Timeout (half the
// publish timeout) runs out before the connection is up.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// A dial or handshake that runs out of its bound is a timeout like the
// request's own deadline. Before, it counted as a plain connection error:
// on a busy machine TestPublishTimeout's 25 ms dial bound ran out first
// and the publish was not reported as a timeout.
func TestTransportErrorCountsADialTimeoutAsATimeout(t *testing.T) {
	t.Parallel()
	p := &Publisher{opts: Options{Name: "slow", Timeout: 50 * time.Millisecond}}
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: timeoutError{}}
	e := p.transportError(context.Background(), dial, false, nil)
	require.True(t, e.Timeout())
	require.True(t, errors.Is(e, context.DeadlineExceeded))
	require.Contains(t, e.Error(), "timeout 50ms")

	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	require.False(t, p.transportError(context.Background(), refused, false, nil).Timeout())
}
