package rabbitmq

import amqp "github.com/rabbitmq/amqp091-go"

// ListenToBlocks makes every connection p dials take its blocks from the
// channel that listen returns instead of from the broker.
func ListenToBlocks(p *Publisher, listen func() <-chan amqp.Blocking) {
	p.notifyBlocked = func(*amqp.Connection) <-chan amqp.Blocking { return listen() }
}

// SessionConn returns the connection of p's current session, nil when p
// holds none.
func SessionConn(p *Publisher) *amqp.Connection {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sess == nil {
		return nil
	}
	return p.sess.link.conn
}
