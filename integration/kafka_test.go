package integration

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
)

// kafkaCluster starts a kfake cluster in the test process on a loopback
// port that the test chose, so the binaries it starts can reach it, and
// creates one topic with the partitions.
func kafkaCluster(t *testing.T, partitions int32) (addr, topic string) {
	t.Helper()
	port := freePort(t)
	c, addr := kafkatest.Cluster(t, kfake.Ports(port))
	require.Equal(t, "127.0.0.1:"+strconv.Itoa(port), addr)
	return addr, kafkatest.Topic(t, c, partitions)
}

// kafkaSourceEnv configures the kafka source kaf on the topic.
func kafkaSourceEnv(env map[string]string, addr, topic string, kv ...string) map[string]string {
	return with(with(env,
		"QUEUEBOX_SOURCES_KAF_TYPE", "kafka",
		"QUEUEBOX_SOURCES_KAF_BOOTSTRAPSERVERS", addr,
		"QUEUEBOX_SOURCES_KAF_TOPICS_0", topic,
		"QUEUEBOX_SOURCES_KAF_GROUPID", "queuebox-kaf",
		"QUEUEBOX_SOURCES_KAF_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_KAF_EVENTTYPEPATH", "$.type",
		"QUEUEBOX_SOURCES_KAF_TOPIC", "kaf.{{ eventType }}",
	), kv...)
}

func countKafkaInbox(conn *pgx.Conn) (rows, distinct int) {
	err := conn.QueryRow(context.Background(),
		`SELECT count(*), count(DISTINCT idempotency_key) FROM inbox WHERE source = 'kaf'`).Scan(&rows, &distinct)
	if err != nil {
		return -1, -1
	}
	return rows, distinct
}

func produceKafka(t *testing.T, cl *kgo.Client, topic string, key []byte, body string, headers ...string) {
	t.Helper()
	r := &kgo.Record{Topic: topic, Key: key, Value: []byte(body)}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: headers[i], Value: []byte(headers[i+1])})
	}
	kafkatest.Produce(t, cl, r)
}

// TestKafkaTopicReachesTheInbox: queuebox-ingest stores each record of the
// topic once, with its attributes and headers; a repeat is a duplicate, a
// value that is not JSON a dead row, and the group commits past all of
// them; the readiness answer carries kafka.kaf.
func TestKafkaTopicReachesTheInbox(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	addr, topic := kafkaCluster(t, 2)
	cl := kafkatest.Client(t, addr)
	ingest := startServing(t, "ingest", kafkaSourceEnv(db.env(), addr, topic))
	ingest.waitHTTP(t, "/health/ready", http.StatusOK)
	_, body := get(t, ingest.url("/health/ready"))
	require.Contains(t, body, "kafka.kaf")

	produceKafka(t, cl, topic, []byte("customer-1"), `{"id":"o-1","type":"order.created"}`, "x-tenant", "acme")
	produceKafka(t, cl, topic, []byte("customer-1"), `{"id":"o-1","type":"order.created"}`)
	produceKafka(t, cl, topic, nil, `not json`)
	conn := db.connect(t)
	require.Eventually(t, func() bool { n, _ := countKafkaInbox(conn); return n >= 2 }, 60*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool {
		got := kafkatest.Committed(t, addr, "queuebox-kaf", topic)
		return got[0]+got[1] == 3
	}, 60*time.Second, 20*time.Millisecond, "the group committed every record")
	rows, err := conn.Query(context.Background(), `SELECT idempotency_key, state, headers->>'x-tenant', aggregate_id, event_type
		FROM inbox WHERE source = 'kaf' ORDER BY state DESC, idempotency_key`)
	require.NoError(t, err)
	defer rows.Close()
	var got []string
	for rows.Next() {
		var key, state string
		var tenant, agg, event *string
		require.NoError(t, rows.Scan(&key, &state, &tenant, &agg, &event))
		got = append(got, fmt.Sprintf("%s %s %s %s %s", key[:min(len(key), 7)], state, deref(tenant), deref(agg), deref(event)))
	}
	require.Equal(t, []string{"o-1 pending acme customer-1 order.created", "sha256: dead   "}, got)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestOutboxReachesTheKafkaTopic: queuebox-deliver produces a row to the
// rendered topic with the record key and the documented headers, and marks
// it sent.
func TestOutboxReachesTheKafkaTopic(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	addr, topic := kafkaCluster(t, 1)
	startServing(t, "deliver", with(db.env(),
		"QUEUEBOX_DESTINATIONS_EVENTS_TYPE", "kafka",
		"QUEUEBOX_DESTINATIONS_EVENTS_BOOTSTRAPSERVERS", addr,
		"QUEUEBOX_DESTINATIONS_EVENTS_TOPIC", topic,
		"QUEUEBOX_DESTINATIONS_EVENTS_HEADERS_X-ORIGIN", "queuebox",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**",
		"QUEUEBOX_ROUTES_0_DESTINATION", "events",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20"))
	conn := db.connect(t)
	var id string
	require.NoError(t, conn.QueryRow(context.Background(), `INSERT INTO outbox (topic, key, aggregate_type, payload, headers)
		VALUES ('order.created', 'order-7', 'order', '{"n":7}', '{"x-tenant":"acme"}') RETURNING id::text`).Scan(&id))
	require.Eventually(t, func() bool {
		var state string
		err := conn.QueryRow(context.Background(), `SELECT state FROM outbox WHERE id = $1`, id).Scan(&state)
		return err == nil && state == "sent"
	}, 60*time.Second, 20*time.Millisecond)
	recs := kafkatest.Records(t, addr, topic)
	require.Len(t, recs, 1)
	r := recs[0]
	require.JSONEq(t, `{"n":7}`, string(r.Value))
	require.Equal(t, "order-7", string(r.Key))
	require.Equal(t, []string{id}, kafkatest.Header(r, "x-message-id"))
	require.Equal(t, []string{"order.created"}, kafkatest.Header(r, "x-topic"))
	require.Equal(t, []string{"0"}, kafkatest.Header(r, "x-attempt"))
	require.Equal(t, []string{"acme"}, kafkatest.Header(r, "x-tenant"))
	h := map[string][]string{}
	for _, rh := range r.Headers {
		h[rh.Key] = append(h[rh.Key], string(rh.Value))
	}
	require.Equal(t, "queuebox", originHeader(h))
}

// TestKafkaIngestKilledMidStream: kill -9 of queuebox-ingest while it
// stores a topic; a new process of the same group continues, and every
// record is stored exactly once.
func TestKafkaIngestKilledMidStream(t *testing.T) {
	t.Parallel()
	const total = 1000
	db := newDatabase(t)
	addr, topic := kafkaCluster(t, 3)
	cl := kafkatest.Client(t, addr)
	env := kafkaSourceEnv(db.env(), addr, topic, "QUEUEBOX_SOURCES_KAF_MAXPOLLRECORDS", "20")
	produceMany := func(from, to int) {
		recs := make([]*kgo.Record, 0, to-from)
		for i := from; i < to; i++ {
			recs = append(recs, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, `{"id":"evt-%d","type":"t"}`, i)})
		}
		kafkatest.Produce(t, cl, recs...)
	}
	produceMany(0, total/2)
	conn := db.connect(t)
	first := startOnFreePort(t, "ingest", env)
	require.Eventually(t, func() bool { n, _ := countKafkaInbox(conn); return n >= 50 }, 60*time.Second, 2*time.Millisecond)
	first.kill()
	atKill, _ := countKafkaInbox(conn)
	t.Logf("killed queuebox-ingest with %d of %d rows stored", atKill, total/2)
	produceMany(total/2, total)
	startServing(t, "ingest", env)
	require.Eventually(t, func() bool { n, _ := countKafkaInbox(conn); return n >= total }, 180*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool {
		got := kafkatest.Committed(t, addr, "queuebox-kaf", topic)
		var sum int64
		for _, o := range got {
			sum += o
		}
		return sum == total
	}, 120*time.Second, 20*time.Millisecond, "every offset committed")
	n, distinct := countKafkaInbox(conn)
	require.Equal(t, total, n, "every record stored")
	require.Equal(t, total, distinct, "and once")
}
