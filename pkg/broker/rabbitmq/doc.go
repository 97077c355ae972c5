// Package rabbitmq is the RabbitMQ side of QueueBox: a destination
// publisher (Publisher) that sends outbox rows to an exchange with
// publisher confirms, and a source consumer (Consumer) that stores the
// messages of one queue in the inbox.
//
// # Publisher
//
// One Publisher serves one destination over one connection and one
// channel in confirm mode. It declares the exchange that the
// configuration spells out (durable, of Options.ExchangeType) once per
// connection; an exchange rendered from the row (exchangeFrom or a
// template) is only checked with a passive declaration on a channel of
// its own, never created, and a row whose exchange does not exist goes
// dead. It publishes
// with the mandatory flag. Publish returns nil only after the broker's
// basic.ack for that very message: each publish registers its own
// delivery tag before the frame is sent, and one reader goroutine per
// channel matches every ack, nack and basic.return to its tag, in the
// order the broker sent them. Many publishes can be in flight on the one
// channel at once, so concurrent callers share a round trip instead of
// queueing behind each other. RabbitMQ answers an unroutable mandatory
// message with basic.return and then basic.ack; the publisher reads that
// pair as a failed publish. A return is matched to the oldest unconfirmed
// publish with the same message_id (the row id); the return carries no
// delivery tag.
//
// A message carries the properties and headers of 26_Headers: message_id
// (the row id), content_type application/json, delivery_mode 2 or 1, the
// x-topic header and the x-attempt header as a 32-bit integer, then the
// static headers of the destination and last the row headers. A row
// header replaces a static header of the same name in any letter case.
// No group replaces x-topic or x-attempt: an AMQP table holds one value
// per name, so a row header of exactly that name is dropped, and one that
// differs in letter case travels beside the standard header.
//
// The connection is dialled on the first Publish, not by New, so a
// process starts while the broker is down. A connection or channel that
// closes fails every publish in flight on it (its outcome is unknown, and
// the row retries) and the next Publish dials again. A publish that runs
// out of the publisher's own timeout also drops the connection, because a
// broker that does not confirm in time cannot be trusted with the next
// message either.
//
// # Consumer
//
// A Consumer is the run.Component of one rabbitmq source; see its doc.
//
// Errors and logs never hold the password of an AMQP URL.
package rabbitmq
