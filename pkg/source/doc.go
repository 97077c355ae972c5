// Package source is the runner that every broker source (RabbitMQ, NATS,
// Kafka) hands its messages through. It holds, once, what the three
// consumers share:
//
//  1. Runner.Handle gives one message to the receive step and maps its
//     answer to the broker's: Stored, Duplicate, Filtered and Dead (the
//     dead row is already stored) are acknowledged, Rejected is
//     terminated (never delivered again), and a failed store is given
//     back for redelivery (Nak) with a backoff that doubles while the
//     store keeps failing. Each broker implements Answer for one message,
//     and so keeps its own way to acknowledge, terminate and requeue.
//  2. The drain context: the message in hand still gets its store for
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
