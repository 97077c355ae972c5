// Package webhooksig implements the HMAC part (signature version v1) of
// the Standard Webhooks scheme for both directions of QueueBox: it signs
// what a destination sends, and it verifies what an inbox source
// receives.
//
// A signed message carries three headers: webhook-id (a stable message
// identifier), webhook-timestamp (Unix seconds of this attempt) and
// webhook-signature, a space-separated list of "v1,<base64>" entries, one
// per key. Each entry is the HMAC-SHA256 of "<id>.<timestamp>.<body>"
// under one key. A key is written as "whsec_" followed by the base64 of
// 24 to 64 random bytes.
//
// Several entries let a receiver move to a new key without a gap: the
// sender signs with the current key and with every previous one, and a
// receiver accepts a message when any entry matches any key it knows.
//
// Ed25519 signatures (v1a, whsk_/whpk_ keys) are not implemented: the
// official Go and npm verifiers check v1 only, so a v1a signature could
// not be checked by the receivers that these libraries serve.
//
// Publisher wraps any queuebox.Publisher, so the HTTP, RabbitMQ, NATS and
// Kafka destinations sign the same way, in this one place.
package webhooksig
