// Package nats is the NATS side of QueueBox: a queuebox.Publisher that
// publishes outbox rows to a subject (Publisher), through JetStream by
// default, and an inbox source that reads a JetStream stream through a
// durable pull consumer (Consumer).
//
// A publish carries the delivery body and the headers of the NATS
// destination in the headers reference, in three groups applied in this
// order: the standard headers (x-message-id, x-topic, x-attempt and, for a
// keyed row, x-message-key), the static destination headers, and the row
// headers. A row header replaces a static header of the same name in any
// letter case; no group removes a standard header, so a row or static
// header with a standard name adds a second value next to it. No
// Nats-Msg-Id is set: the reference lists every header QueueBox sends,
// and a row that wants JetStream's duplicate window sets Nats-Msg-Id as a
// row header.
//
// The consumer stores each message through ingest.Receiver and only then
// acknowledges it, so a crash replays the message and the inbox unique
// constraint rejects the replay. It never creates the stream; it creates
// (or updates) its durable consumer.
//
// Credentials (password, token) never appear in a log line or an error:
// texts that come from the client library are redacted.
package nats
