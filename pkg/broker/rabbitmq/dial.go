package rabbitmq

import (
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/alternayte/queuebox/pkg/netguard"
)

// link is one dialled connection with its socket, so a teardown can cut
// it without waiting for a close handshake that a stalled broker never
// answers.
type link struct {
	conn *amqp.Connection
	raw  net.Conn
	// blockedBy is the reason of the broker's connection.blocked while it
	// lasts, nil otherwise (see watchBlocked).
	blockedBy atomic.Pointer[string]
}

// watchBlocked follows the broker's connection.blocked and
// connection.unblocked (RabbitMQ raises a block on a memory or disk
// alarm) until blocks closes with the connection or done closes (the
// session on the connection ended: a channel the broker closed leaves the
// connection open), and logs each change. A blocked connection takes no
// publish: the broker stops reading it, so a message sent then waits for
// a confirm until the publish timeout.
func (l *link) watchBlocked(blocks <-chan amqp.Blocking, done <-chan struct{}, log *slog.Logger) {
	for {
		var b amqp.Blocking
		var ok bool
		select {
		case b, ok = <-blocks:
		case <-done:
			return
		}
		if !ok {
			return
		}
		if b.Active {
			reason := b.Reason
			l.blockedBy.Store(&reason)
			log.Warn("the broker blocked the connection; this destination's rows are deferred until it lifts the block",
				"reason", reason)
			continue
		}
		if l.blockedBy.Swap(nil) != nil {
			log.Info("the broker lifted the connection's block")
		}
	}
}

// blocked returns the reason of the broker's block, and whether there is
// one.
func (l *link) blocked() (string, bool) {
	if r := l.blockedBy.Load(); r != nil {
		return *r, true
	}
	return "", false
}

// notifyBlocked registers the listener of a new connection's blocks; the
// client closes it with the connection.
func notifyBlocked(c *amqp.Connection) <-chan amqp.Blocking {
	return c.NotifyBlocked(make(chan amqp.Blocking, 4))
}

// dialLink dials url within timeout: the TCP connect and the AMQP
// handshake. name becomes the connection_name client property, which the
// management UI shows. guard, when not nil, refuses an inside address
// before the connect (http.blockPrivateAddresses).
func dialLink(url, name string, timeout time.Duration, guard *netguard.Dialer) (*link, error) {
	l := &link{}
	dial := amqp.DefaultDial(timeout)
	if guard != nil {
		dial = func(network, addr string) (net.Conn, error) {
			c, err := guard.Dial(network, addr)
			if err != nil {
				return nil, err
			}
			// The deadline of amqp.DefaultDial: the TLS and AMQP
			// handshakes must not stall on a dead server either.
			if err := c.SetDeadline(time.Now().Add(timeout)); err != nil {
				_ = c.Close()
				return nil, err
			}
			return c, nil
		}
	}
	conn, err := amqp.DialConfig(url, amqp.Config{
		Heartbeat: 10 * time.Second,
		Locale:    "en_US",
		Dial: func(network, addr string) (net.Conn, error) {
			c, err := dial(network, addr)
			l.raw = c
			return c, err
		},
		Properties: amqp.Table{"connection_name": name},
	})
	if err != nil {
		return nil, err
	}
	l.conn = conn
	return l, nil
}

// close ends the connection: a close handshake bounded by wait, then the
// socket itself. wait 0 cuts the socket at once.
func (l *link) close(wait time.Duration) {
	if wait > 0 && l.conn.CloseDeadline(time.Now().Add(wait)) == nil {
		return
	}
	// The client's reader sees the closed socket and shuts the
	// connection down, closing every channel and listener.
	_ = l.raw.Close()
}
