package rabbitmq

import amqp "github.com/rabbitmq/amqp091-go"

// ListenToBlocks makes every connection p dials take its blocks from the
// channel that listen returns instead of from the broker.
func ListenToBlocks(p *Publisher, listen func() <-chan amqp.Blocking) {
	p.notifyBlocked = func(*amqp.Connection) <-chan amqp.Blocking { return listen() }
}
