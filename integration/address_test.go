package integration

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// TestWebhookCannotChooseAJetStreamAPISubject: with the documented
// patterns topic: "{{ eventType }}" on a webhook source and
// subject: "{{ topic }}" on a NATS destination, a webhook whose type is
// $JS.API.STREAM.PURGE.<stream> does not purge the stream: the outbox row
// goes dead at once (no retry), with a reason that names the
// destination and the subject, and the stream keeps its message.
func TestWebhookCannotChooseAJetStreamAPISubject(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	s := newNATSStream(t, natstest.URL())
	s.publish(t, `{"kept":true}`)
	env := configEnv(t, db, fmt.Sprintf(`
sources:
  hooks:
    type: http
    path: /hooks
    idempotencyKeyPath: $.id
    eventTypePath: $.type
    topic: "{{ eventType }}"
inbox:
  relay:
    pollIntervalMs: 20
outbox:
  pollIntervalMs: 20
destinations:
  stream:
    type: nats
    servers: %s
    subject: "{{ topic }}"
routes:
  - topicPattern: "**"
    destination: stream
`, natstest.URL()))
	ingest := startServing(t, "ingest", env)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	subject := "$JS.API.STREAM.PURGE." + s.name
	code, body, _ := post(t, ingest.url("/inbox/hooks"), fmt.Sprintf(`{"id":"w-1","type":%q}`, subject))
	require.Equal(t, http.StatusAccepted, code, body)

	attempt, lastError := waitOutbox(t, db, subject, "dead")
	require.Contains(t, lastError, "nats destination stream")
	require.Contains(t, lastError, subject)
	require.Equal(t, 0, attempt, "dead at once, never retried")
	require.Len(t, natstest.Messages(t, s.stream), 1, "the stream keeps its message")
}
