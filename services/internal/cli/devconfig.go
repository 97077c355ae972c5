package cli

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
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

// devTry is what queuebox dev prints once everything is ready: where
// everything is, and lines to try. The demo's sources exist only without
// --config, so a configuration file of the user's gets the general lines.
func devTry(pgPort int, f devFlags, dir string, keep bool) string {
	psql := fmt.Sprintf("psql -h 127.0.0.1 -p %d -U postgres -d queuebox", pgPort)
	left := "Ctrl-C stops everything and removes " + dir
	if keep {
		left = "Ctrl-C stops everything; the data stays in " + dir
	}
	head := fmt.Sprintf(`
QueueBox is ready: every role, capture included, on http://127.0.0.1:%[2]d
PostgreSQL: 127.0.0.1:%[1]d (user postgres, database queuebox), data in %[3]s
Admin token of this run: %[4]s (the UI: http://127.0.0.1:%[2]d/admin/ui/)
`, pgPort, f.httpPort, dir, f.adminToken)
	tail := fmt.Sprintf(`
Replay what was sent, health and metrics:
  curl -X POST http://127.0.0.1:%[1]d/admin/replay -H 'Authorization: Bearer %[2]s' -d '{"destination":"%[3]s"}'
  curl -s http://127.0.0.1:%[1]d/health/ready
  curl -s http://127.0.0.1:%[1]d/metrics | grep ^queuebox

%[4]s.
`, f.httpPort, f.adminToken, "receiver", left)
	if f.config != "" {
		return head + fmt.Sprintf(`Configuration: %[1]s over the dev defaults (%[2]s is the demo receiver, whose lines start with "receiver:")
  %[3]s -c "SELECT topic, key, state, attempt FROM outbox"
  %[3]s -c "SELECT source, idempotency_key, consumption, state FROM inbox"
`, f.config, composeReceiver, psql) + strings.Replace(tail, `"destination":"receiver"`, `"destination":"<name>"`, 1)
	}
	return head + fmt.Sprintf(`
Deliver an outbox row to the demo receiver (its lines start with "receiver:"):
  %[2]s -c "INSERT INTO outbox (topic, key, payload) VALUES ('order.created', 'order-1001', '{\"orderId\":\"1001\",\"amount\":42}')"
  %[2]s -c "SELECT topic, key, state, attempt FROM outbox"

Post a webhook (stored once, relayed to the outbox, delivered):
  curl -i -X POST http://127.0.0.1:%[1]d/inbox/webhooks -H 'Content-Type: application/json' -d '{"id":"evt-1","type":"payment.completed","orderId":"1001"}'

A pull source keeps its rows for your worker:
  curl -i -X POST http://127.0.0.1:%[1]d/inbox/orders -H 'Content-Type: application/json' -d '{"id":"order-1","total":42}'
  %[2]s -c "SELECT source, idempotency_key, consumption, state FROM inbox"
`, f.httpPort, psql) + tail
}
