// Package brokertest holds what every QueueBox publisher and broker source
// is tested with: one contract suite for publishers (Exercise) that each
// queuebox.Publisher, HTTP, RabbitMQ, Kafka or NATS, runs from its own
// package; one for broker sources (ExerciseSource) that the RabbitMQ,
// NATS and Kafka consumers run; and an HTTP destination in the test
// process (HTTPReceiver) for any test that needs a webhook endpoint. It is
// a normal package that imports testing, as net/http/httptest does;
// import it from tests only.
//
// A transport plugs into a suite with a factory: for a publisher, a
// function that starts a fresh destination and a publisher connected to
// it, and a Destination that reads back what the destination accepted and
// injects faults; for a source, a function that creates a fresh queue,
// stream or topic, a SourceBroker that publishes to it, builds consumers
// of it and counts what they left. A SourceReceiver over an
// ingesttest.Inbox stands in for the receive step and the database. For
// the cases a transport cannot produce, a Limits field skips them by name
// and says why. HTTPDestination is the Destination of the webhook
// publisher.
package brokertest
