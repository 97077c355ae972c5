package cli

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// devBase is the part of the configuration of queuebox dev that a
// --config file is merged over: the settings a first try needs (capture
// on, the relay, the admin routes; devConfig adds the token of the run)
// and the loopback names as the only hosts a request may name, so a web
// page cannot reach the admin routes through DNS rebinding.
const devBase = `server:
  allowedHosts: [localhost, 127.0.0.1, "::1"]
outbox:
  pollIntervalMs: 1000
  retryBaseDelayMs: 1000
  maxAttempts: 5
  shutdownTimeoutMs: 5000
inbox:
  relay:
    enabled: true
    pollIntervalMs: 100
admin:
  enabled: true
  auth:
    type: bearer
database:
  poolSize: 10
`

// devDemo is the routing of queuebox dev without --config: the demo of
// the local stack (deploy/local/queuebox.yml), delivering to the
// in-process receiver. A --config file replaces it, so only the file's
// sources answer, as in the Compose stack the file belongs to.
func devDemo(receiverPort int) string {
	return fmt.Sprintf(`destinations:
  receiver:
    type: http
    baseUrl: http://127.0.0.1:%d
    path: /events
    timeoutMs: 5000
    headers:
      X-Team: demo
routes:
  - topicPattern: "order.*"
    destination: receiver
  - topicPattern: "webhook.**"
    destination: receiver
sources:
  webhooks:
    type: http
    path: /webhooks
    idempotencyKeyPath: $.id
    eventTypePath: $.type
    aggregateIdPath: $.orderId
    topic: "webhook.{{ eventType }}"
  orders:
    type: http
    path: /orders
    idempotencyKeyPath: $.id
    consumption: pull
`, receiverPort)
}

const devPublication = "queuebox_outbox"

// newDevToken returns the admin token of one queuebox dev run: 24 random
// bytes in base64url, so no page can guess it from the source.
func newDevToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24 and later)
	return base64.RawURLEncoding.EncodeToString(b)
}
