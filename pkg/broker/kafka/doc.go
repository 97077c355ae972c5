// Package kafka is the Kafka side of QueueBox, on confluent-kafka-go
// (librdkafka): a queuebox.Publisher that produces outbox rows to a topic
// (Publisher), and an inbox source that reads topics through a consumer
// group (Consumer).
//
// The producer runs with acks=all and idempotence, and Publish returns nil
// only after the delivery report says every in-sync replica holds the
// record. The record key is the route's routingKeyTemplate when it sets
// one, else the destination's keyTemplate ({{ key }} by default); an empty
// key sends no key. The record headers are, in this order: x-message-id,
// x-topic and x-attempt, the static destination headers, and the row
// headers, where a row header replaces a static header of the same name in
// any letter case. No group removes a standard header: a row or static
// header with a standard name adds a second record header beside it.
//
// The consumer commits an offset only after the inbox row of the record
// committed: per partition it commits the unbroken run of records that
// ingest.Receiver decided, and it seeks back to the first record whose
// store failed. Auto-commit is off. A rebalance commits what is done and
// drops the rest, which the next owner reads again.
//
// Credentials (saslPassword) never appear in a log line or an error: texts
// that come from librdkafka are redacted.
//
// The package links librdkafka statically through cgo: building it needs
// CGO_ENABLED=1 and a C compiler.
package kafka
