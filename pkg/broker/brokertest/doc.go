// Package brokertest holds what every QueueBox publisher is tested with:
// one contract suite (Exercise) that each queuebox.Publisher, HTTP,
// RabbitMQ, Kafka or NATS, runs from its own package, and an HTTP
// destination in the test process (HTTPReceiver) for any test that needs
// a webhook endpoint. It is a normal package that imports testing, as
// net/http/httptest does; import it from tests only.
//
// A transport plugs into the suite with a Factory: a function that starts
// a fresh destination and a publisher connected to it, a Destination that
// reads back what the destination accepted and injects faults, and, for
// the cases a transport cannot produce, a Limits field that skips them by
// name. HTTPDestination is the Destination of the webhook publisher.
package brokertest
