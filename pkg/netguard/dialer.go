package netguard

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"
)

// Dialer connects over TCP and refuses, before the connect, every address
// that Describe names (see Control), for the clients of the broker
// destinations (RabbitMQ, NATS) that take a dial function. It remembers
// the refusal of its last dial, since a client that connects in the
// background (NATS) reports only that it is not connected. A Dialer is
// safe for concurrent use.
type Dialer struct {
	dialer net.Dialer
	last   atomic.Pointer[BlockedError]
}

// NewDialer returns a Dialer whose connects are bounded by timeout (0 for
// none); destination names the caller in its errors ("rabbitmq
// destination orders").
func NewDialer(destination string, timeout time.Duration) *Dialer {
	return &Dialer{dialer: net.Dialer{Timeout: timeout, Control: Control(destination)}}
}

// Dial connects to address (host:port), as net.Dialer.Dial does. A refused
// address fails with an error that wraps a *BlockedError.
func (d *Dialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

// DialContext is Dial with a context that bounds the connect.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := d.dialer.DialContext(ctx, network, address)
	var blocked *BlockedError
	switch {
	case errors.As(err, &blocked):
		d.last.Store(blocked)
	case err == nil:
		d.last.Store(nil)
	}
	return c, err
}

// Blocked returns the refusal of the last dial that either connected or
// was refused, or nil when that dial connected or none was made. A dial
// that failed for another reason (the server down) leaves it as it was.
func (d *Dialer) Blocked() *BlockedError { return d.last.Load() }
