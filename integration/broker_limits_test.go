package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// limitsBody is a JSON body of more than 64 KiB: past the inbox.maxBodyBytes
// of 2048 that the limit tests set, and within the default message bounds
// of every broker (NATS max_payload 1 MiB, kfake's default).
func limitsBody(id string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"type":"t","pad":%q}`, id, strings.Repeat("x", 64<<10))
}

// requireCutDeadRow checks the inbox row of source whose idempotency key
// is key: a body past an inbox.maxBodyBytes of 2048 is stored dead, with
// its first 4096 bytes as {"raw": …} and a reason that names the limit.
func requireCutDeadRow(t *testing.T, db database, source, key string, body []byte) {
	t.Helper()
	var state, lastError, raw string
	require.NoError(t, db.connect(t).QueryRow(context.Background(), `SELECT state, last_error, payload->>'raw' FROM inbox
		WHERE source = $1 AND idempotency_key = $2`, source, key).Scan(&state, &lastError, &raw))
	require.Equal(t, "dead", state)
	require.Equal(t, fmt.Sprintf("size: body of %d bytes exceeds inbox.maxBodyBytes (2048 bytes); the payload keeps its first 4096 bytes", len(body)), lastError)
	require.Equal(t, string(body[:4096]), raw)
}

// TestNATSMessagePastTheLimit: a JetStream message past inbox.maxBodyBytes
// is one dead inbox row with the cut body and the reason, and the
// consumer acknowledges it, so it never comes again; a message within the
// limit beside it is stored as usual.
func TestNATSMessagePastTheLimit(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	s := newNATSStream(t, natstest.URL())
	p := startServing(t, "ingest", natsSourceEnv(db.env(), natstest.URL(), s, "QUEUEBOX_INBOX_MAXBODYBYTES", "2048"))
	p.waitHTTP(t, "/health/ready", http.StatusOK)

	big := limitsBody("big")
	s.publish(t, string(big), "Nats-Msg-Id", "big-1")
	s.publish(t, `{"id":"small","type":"t"}`)
	conn := db.connect(t)
	require.Eventually(t, func() bool { n, _ := countInbox(conn); return n == 2 }, 60*time.Second, 20*time.Millisecond)
	waitAcked(t, s, "queuebox-jet")
	requireCutDeadRow(t, db, "jet", "big-1", big)
}

// TestKafkaRecordPastTheLimit: a Kafka record past inbox.maxBodyBytes is
// one dead inbox row with the cut body and the reason, and the group
// commits past it; a record within the limit beside it is stored as usual.
func TestKafkaRecordPastTheLimit(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	addr, topic := kafkaCluster(t, 1)
	p := startServing(t, "ingest", kafkaSourceEnv(db.env(), addr, topic, "QUEUEBOX_INBOX_MAXBODYBYTES", "2048"))
	p.waitHTTP(t, "/health/ready", http.StatusOK)

	cl := kafkatest.Client(t, addr)
	big := limitsBody("big")
	produceKafka(t, cl, topic, []byte("big-1"), string(big))
	produceKafka(t, cl, topic, []byte("small-1"), `{"id":"small","type":"t"}`)
	conn := db.connect(t)
	require.Eventually(t, func() bool { n, _ := countKafkaInbox(conn); return n == 2 }, 60*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool {
		return kafkatest.Committed(t, addr, "queuebox-kaf", topic)[0] == 2
	}, 60*time.Second, 20*time.Millisecond, "the group committed past both records")
	requireCutDeadRow(t, db, "kaf", "big-1", big)
}
