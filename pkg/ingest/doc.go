// Package ingest is the transport-neutral receive step of the inbox: what
// every source (the HTTP inbox source of package source/webhook, and the
// RabbitMQ, NATS and Kafka sources of package broker) does with a message
// once its transport has received it. It knows no transport: no HTTP
// server, no broker client, no store dialect and no configuration file.
//
// Receiver.Receive runs these steps on a Message, in this order, and the
// first one that decides ends it (the numbers are those of the request
// steps of package source/webhook, which adds its own steps 0 to 2 and 4):
//
//  3. The header filter of the source: Filtered, no row. Then NUL and
//     invalid UTF-8 in header names and values and in the broker
//     attributes become U+FFFD, and the limits apply: headers that a row
//     would store past MaxStoredHeaders or MaxStoredHeaderBytes, or a
//     body past Transport.MaxBodyBytes (never parsed), are Rejected. In
//     dead-letter mode the dead row keeps the headers that fit and, for
//     a body past the bound, its first DeadBodyPrefix bytes.
//  5. The body is parsed as JSON: a body that is not JSON, or that holds a
//     NUL, is Rejected.
//  6. The idempotency key (required), event type and aggregate identifier
//     are extracted with their definite JSONPaths: Rejected naming the
//     path. A broker source reads them in the broker order of 26_Headers
//     instead (header, path, broker id, digest of the body).
//  7. The source transform, when one is configured: Rejected for onError
//     Fail and Dead, the original body for Skip.
//  8. The row is stored. The unique constraint decides: Stored with the
//     new row id, or Duplicate; an error when the write fails. A value the
//     database refuses for what it is is Rejected, because it would fail
//     on every try. ReceiveBatch stores the rows of a group in one
//     statement and one commit, and GroupCommit gives concurrent
//     Receive calls (the HTTP requests) the same; the ids are UUID
//     version 7, so the rows of one commit keep their order.
//
// Receive returns a Decision (Stored, Duplicate, Filtered, Rejected or
// Dead) that each transport maps to its answer, and an error only when
// the message must be sent again. A broker source sets
// Transport.DeadLetter, so the messages that HTTP rejects are stored as
// dead rows instead (28_Inbox_table, 32_Transforms), and
// Transport.BrokerAttributes, so the attributes come in the broker order.
//
// The transform runs before the duplicate check, so every rejection is a
// function of the message alone and does not change when a sender
// repeats it.
//
// Received headers are kept one value per name, under the lower-case
// name, both in the headers column and in $headers of the source
// transform. Authorization, Proxy-Authorization, Cookie and the names of
// Transport.OmitHeaders are never stored.
package ingest
