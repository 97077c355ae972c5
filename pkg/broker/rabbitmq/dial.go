package rabbitmq

import (
	"net"
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
