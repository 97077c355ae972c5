// Package source is the runner that every broker source (RabbitMQ, NATS,
// Kafka) hands its messages through. It holds, once, what the three
// consumers share:
//
//  1. Runner.HandleBatch gives one fetched group (a RabbitMQ prefetch
//     window, a JetStream fetch, a Kafka poll) to the receive step in one
//     ReceiveBatch, and after it returned maps each message's decision to
//     the broker's answer: Stored, Duplicate, Filtered and Dead (the dead
//     row is already stored) are acknowledged, Rejected is terminated
//     (never delivered again), and a failed store gives the whole group
//     back for redelivery (Nak) with a backoff that doubles while the
//     store keeps failing. Each broker implements Answer for one message,
//     and so keeps its own way to acknowledge, terminate and requeue.
//     Gather forms the group of a broker that pushes messages ahead: what
//     is there now, never waiting for more.
//  2. The drain context: the group in hand still gets its store for
//     DrainTimeout after the consumer's context ends, because a row that
//     commits and then gets its acknowledgement beats a redelivery of a
//     row that may already be written.
//  3. Reconnect, the loop that runs a broker session again after it
//     failed, with the doubling backoff of pkg/backoff.
//
// A message is acknowledged only after the receive step returned a final
// decision, that is after the inbox row committed or when none is due. A
// crash, a lost connection or a lost acknowledgement only redelivers the
// message, and the inbox finds the repeat a duplicate.
package source
