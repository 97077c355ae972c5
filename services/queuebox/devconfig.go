package main

import "fmt"

// devConfig is the configuration of queuebox dev: the demo of the local
// stack (deploy/local/queuebox.yml) with capture on, against the private
// cluster, delivering to the in-process receiver.
func devConfig(pgPort, httpPort, receiverPort int, stateDir string) string {
	return fmt.Sprintf(`server:
  httpPort: %d
database:
  url: jdbc:postgresql://127.0.0.1:%d/queuebox
  username: postgres
  password: ""
  poolSize: 10
outbox:
  pollIntervalMs: 1000
  retryBaseDelayMs: 1000
  maxAttempts: 5
  shutdownTimeoutMs: 5000
  capture:
    enabled: true
    mode: postgres-logical
    slot: queuebox_dev
    publication: %s
    stateDirectory: %s
    reconciliationIntervalMs: 5000
inbox:
  relay:
    enabled: true
    pollIntervalMs: 100
admin:
  enabled: true
  auth:
    type: bearer
    token: %s
destinations:
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
`, httpPort, pgPort, devPublication, stateDir, devAdminToken, receiverPort)
}

const (
	devPublication = "queuebox_outbox"
	devAdminToken  = "demo-admin-token"
)

// devTry is what queuebox dev prints once everything is ready.
func devTry(pgPort, httpPort int, dir string, keep bool) string {
	psql := fmt.Sprintf("psql -h 127.0.0.1 -p %d -U postgres -d queuebox", pgPort)
	left := "Ctrl-C stops everything and removes " + dir
	if keep {
		left = "Ctrl-C stops everything; the data stays in " + dir
	}
	return fmt.Sprintf(`
QueueBox is ready: every role, capture included, on http://127.0.0.1:%[2]d
PostgreSQL: 127.0.0.1:%[1]d (user postgres, database queuebox), data in %[3]s

Deliver an outbox row to the demo receiver (its lines start with "receiver:"):
  %[4]s -c "INSERT INTO outbox (topic, key, payload) VALUES ('order.created', 'order-1001', '{\"orderId\":\"1001\",\"amount\":42}')"
  %[4]s -c "SELECT topic, key, state, attempt FROM outbox"

Post a webhook (stored once, relayed to the outbox, delivered):
  curl -i -X POST http://127.0.0.1:%[2]d/inbox/webhooks -H 'Content-Type: application/json' -d '{"id":"evt-1","type":"payment.completed","orderId":"1001"}'

A pull source keeps its rows for your worker:
  curl -i -X POST http://127.0.0.1:%[2]d/inbox/orders -H 'Content-Type: application/json' -d '{"id":"order-1","total":42}'
  %[4]s -c "SELECT source, idempotency_key, consumption, state FROM inbox"

Replay what was sent to the receiver, health and metrics:
  curl -X POST http://127.0.0.1:%[2]d/admin/replay -H 'Authorization: Bearer %[5]s' -d '{"destination":"receiver"}'
  curl -s http://127.0.0.1:%[2]d/health/ready
  curl -s http://127.0.0.1:%[2]d/metrics | grep ^queuebox

%[6]s.
`, pgPort, httpPort, dir, psql, devAdminToken, left)
}
