package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// natsStream is a stream of one test on the server at url.
type natsStream struct {
	js     jetstream.JetStream
	stream jetstream.Stream
	name   string
	// prefix is the subject prefix the stream holds (<prefix>.>).
	prefix string
}

func newNATSStream(t *testing.T, url string) natsStream {
	t.Helper()
	_, js := natstest.Connect(t, url)
	s, prefix := natstest.Stream(t, js)
	return natsStream{js: js, stream: s, name: s.CachedInfo().Config.Name, prefix: prefix}
}

func (s natsStream) publish(t *testing.T, body string, headers ...string) {
	t.Helper()
	h := map[string]string{}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	natstest.Publish(t, s.js, s.prefix+".in", []byte(body), h)
}

// natsSourceEnv configures the nats source jet on the stream.
func natsSourceEnv(env map[string]string, url string, s natsStream, kv ...string) map[string]string {
	return with(with(env,
		"QUEUEBOX_SOURCES_JET_TYPE", "nats",
		"QUEUEBOX_SOURCES_JET_SERVERS", url,
		"QUEUEBOX_SOURCES_JET_STREAM", s.name,
		"QUEUEBOX_SOURCES_JET_DURABLE", "queuebox-jet",
		"QUEUEBOX_SOURCES_JET_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_JET_EVENTTYPEPATH", "$.type",
		"QUEUEBOX_SOURCES_JET_AGGREGATEIDPATH", "$.customer",
		"QUEUEBOX_SOURCES_JET_TOPIC", "jet.{{ eventType }}",
	), kv...)
}

type inboxRow struct {
	Key, State, Payload, Headers string
	EventType, AggregateID       *string
}

func inboxRows(t *testing.T, db database) []inboxRow {
	t.Helper()
	conn := db.connect(t)
	rows, err := conn.Query(context.Background(), `SELECT idempotency_key, state, payload::text, headers::text, event_type, aggregate_id
		FROM inbox WHERE source = 'jet' ORDER BY created_at, idempotency_key`)
	require.NoError(t, err)
	defer rows.Close()
	var out []inboxRow
	for rows.Next() {
		var r inboxRow
		require.NoError(t, rows.Scan(&r.Key, &r.State, &r.Payload, &r.Headers, &r.EventType, &r.AggregateID))
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}

// countInbox counts the rows of source jet, -1 while the table is not
// there yet (the binary migrates at start).
func countInbox(conn *pgx.Conn) (rows, distinct int) {
	err := conn.QueryRow(context.Background(),
		`SELECT count(*), count(DISTINCT idempotency_key) FROM inbox WHERE source = 'jet'`).Scan(&rows, &distinct)
	if err != nil {
		return -1, -1
	}
	return rows, distinct
}

// waitAcked waits until the durable consumer has nothing pending or
// unacknowledged.
func waitAcked(t *testing.T, s natsStream, durable string) {
	t.Helper()
	require.Eventually(t, func() bool {
		p, a := natstest.Pending(t, s.stream, durable)
		return p == 0 && a == 0
	}, 60*time.Second, 20*time.Millisecond, "every message acknowledged")
}

// TestNATSStreamReachesTheInbox: queuebox-ingest stores each message of
// the stream once, with its attributes and headers; a repeat is a
// duplicate, a body that is not JSON a dead row; the readiness answer
// carries nats.jet.
func TestNATSStreamReachesTheInbox(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	s := newNATSStream(t, natstest.URL())
	ingest := startServing(t, "ingest", natsSourceEnv(db.env(), natstest.URL(), s))
	ingest.waitHTTP(t, "/health/ready", http.StatusOK)
	_, ready := get(t, ingest.url("/health/ready"))
	require.Contains(t, ready, `"nats.jet":{"status":"up"}`)

	s.publish(t, `{"id":"evt-1","type":"order.created","customer":"c-1"}`, "X-Tenant", "acme")
	s.publish(t, `{"id":"evt-1","type":"order.created","customer":"c-1"}`)
	s.publish(t, `plain text`, "Nats-Msg-Id", "raw-1")
	waitAcked(t, s, "queuebox-jet")
	rows := inboxRows(t, db)
	require.Len(t, rows, 2)
	require.Equal(t, "evt-1", rows[0].Key)
	require.Equal(t, "pending", rows[0].State)
	require.Equal(t, "order.created", *rows[0].EventType)
	require.Equal(t, "c-1", *rows[0].AggregateID)
	require.Contains(t, rows[0].Headers, `"x-tenant": "acme"`)
	require.Equal(t, "raw-1", rows[1].Key, "the Nats-Msg-Id is the key of a body without one")
	require.Equal(t, "dead", rows[1].State)
	require.JSONEq(t, `{"raw":"plain text"}`, rows[1].Payload)
}

// TestOutboxReachesTheNATSSubject: queuebox-deliver publishes a row to
// the rendered subject with the documented headers and marks it sent.
func TestOutboxReachesTheNATSSubject(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	s := newNATSStream(t, natstest.URL())
	startServing(t, "deliver", natsDestinationEnv(db.env(), s.prefix+".{{ aggregateType }}.{{ topic }}",
		"QUEUEBOX_DESTINATIONS_EVENTS_HEADERS_X-ORIGIN", "queuebox"))
	conn := db.connect(t)
	var id string
	require.NoError(t, conn.QueryRow(context.Background(), `INSERT INTO outbox (topic, key, aggregate_type, payload, headers)
		VALUES ('order.created', 'order-7', 'order', '{"n":7}', '{"x-tenant":"acme"}') RETURNING id::text`).Scan(&id))
	require.Eventually(t, func() bool {
		var state string
		err := conn.QueryRow(context.Background(), `SELECT state FROM outbox WHERE id = $1`, id).Scan(&state)
		return err == nil && state == "sent"
	}, 30*time.Second, 20*time.Millisecond)
	msgs := natstest.Messages(t, s.stream)
	require.Len(t, msgs, 1)
	m := msgs[0]
	require.Equal(t, s.prefix+".order.order.created", m.Subject)
	require.JSONEq(t, `{"n":7}`, string(m.Data))
	require.Equal(t, id, m.Header.Get("x-message-id"))
	require.Equal(t, "order.created", m.Header.Get("x-topic"))
	require.Equal(t, "0", m.Header.Get("x-attempt"))
	require.Equal(t, "order-7", m.Header.Get("x-message-key"))
	require.Equal(t, "acme", m.Header.Get("x-tenant"))
	require.Equal(t, "queuebox", originHeader(m.Header))
}

// natsDestinationEnv routes every topic to the NATS destination events on
// subject, polling every 20 ms; kv adds variables.
func natsDestinationEnv(env map[string]string, subject string, kv ...string) map[string]string {
	return with(with(env,
		"QUEUEBOX_DESTINATIONS_EVENTS_TYPE", "nats",
		"QUEUEBOX_DESTINATIONS_EVENTS_SERVERS", natstest.URL(),
		"QUEUEBOX_DESTINATIONS_EVENTS_SUBJECT", subject,
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**",
		"QUEUEBOX_ROUTES_0_DESTINATION", "events",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20"), kv...)
}

// originHeader reads the static header whatever letter case the
// environment variable path gave its name.
func originHeader(h map[string][]string) string {
	for k, v := range h {
		if strings.EqualFold(k, "x-origin") && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// TestNATSIngestKilledMidStream: kill -9 of queuebox-ingest while it
// stores a stream; a new process continues, and every message is stored
// exactly once.
func TestNATSIngestKilledMidStream(t *testing.T) {
	t.Parallel()
	const total = 1000
	db := newDatabase(t)
	s := newNATSStream(t, natstest.URL())
	env := natsSourceEnv(db.env(), natstest.URL(), s, "QUEUEBOX_SOURCES_JET_ACKWAITMS", "2000",
		"QUEUEBOX_SOURCES_JET_BATCHSIZE", "20")
	for i := range total / 2 {
		s.publish(t, fmt.Sprintf(`{"id":"evt-%d","type":"t"}`, i))
	}
	conn := db.connect(t)
	first := startOnFreePort(t, "ingest", env)
	require.Eventually(t, func() bool { n, _ := countInbox(conn); return n >= 50 }, 60*time.Second, 2*time.Millisecond)
	first.kill()
	atKill, _ := countInbox(conn)
	t.Logf("killed queuebox-ingest with %d of %d rows stored", atKill, total/2)
	for i := total / 2; i < total; i++ {
		s.publish(t, fmt.Sprintf(`{"id":"evt-%d","type":"t"}`, i))
	}
	startServing(t, "ingest", env)
	require.Eventually(t, func() bool { n, _ := countInbox(conn); return n >= total }, 120*time.Second, 20*time.Millisecond)
	waitAcked(t, s, "queuebox-jet")
	n, distinct := countInbox(conn)
	require.Equal(t, total, n, "every message stored")
	require.Equal(t, total, distinct, "and once")
}

// TestNATSServerRestartLosesNothing restarts a nats-server of the test's
// own while queuebox-ingest reads from it and queuebox-deliver publishes
// to it: every message reaches the inbox once and every row is sent.
func TestNATSServerRestartLosesNothing(t *testing.T) {
	t.Parallel()
	const each = 50
	srv := natstest.StartServer(t)
	db := newDatabase(t)
	in := newNATSStream(t, srv.URL)
	out := newNATSStream(t, srv.URL)
	env := with(natsSourceEnv(db.env(), srv.URL, in),
		"QUEUEBOX_DESTINATIONS_EVENTS_TYPE", "nats",
		"QUEUEBOX_DESTINATIONS_EVENTS_SERVERS", srv.URL,
		"QUEUEBOX_DESTINATIONS_EVENTS_SUBJECT", out.prefix+".{{ topic }}",
		"QUEUEBOX_DESTINATIONS_EVENTS_TIMEOUTMS", "2000",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**",
		"QUEUEBOX_ROUTES_0_DESTINATION", "events",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20",
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "100",
		"QUEUEBOX_OUTBOX_MAXATTEMPTS", "30")
	ingest := startServing(t, "ingest", env)
	startServing(t, "deliver", env)
	conn := db.connect(t)
	insert := func(from, to int) {
		for i := from; i < to; i++ {
			_, err := conn.Exec(context.Background(), `INSERT INTO outbox (topic, payload, max_attempts) VALUES ('out', $1, 30)`,
				fmt.Sprintf(`{"row":%d}`, i))
			require.NoError(t, err)
		}
	}
	for i := range each {
		in.publish(t, fmt.Sprintf(`{"id":"before-%d","type":"t"}`, i))
	}
	insert(0, each)
	require.Eventually(t, func() bool { n, _ := countInbox(conn); return n >= 10 }, 60*time.Second, 5*time.Millisecond)

	srv.Stop(t)
	ingest.waitHTTP(t, "/health/ready", http.StatusServiceUnavailable)
	insert(each, 2*each) // rows that find no server, and retry
	srv.Start(t)
	ingest.waitHTTP(t, "/health/ready", http.StatusOK)
	for i := range each {
		in.publish(t, fmt.Sprintf(`{"id":"after-%d","type":"t"}`, i))
	}

	require.Eventually(t, func() bool { n, _ := countInbox(conn); return n >= 2*each }, 120*time.Second, 20*time.Millisecond)
	waitAcked(t, in, "queuebox-jet")
	n, distinct := countInbox(conn)
	require.Equal(t, 2*each, n)
	require.Equal(t, 2*each, distinct)

	require.Eventually(t, func() bool {
		var sent int
		require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE state = 'sent'`).Scan(&sent))
		return sent == 2*each
	}, 120*time.Second, 20*time.Millisecond, "every outbox row sent")
	seen := map[string]bool{}
	for _, m := range natstest.Messages(t, out.stream) {
		seen[m.Header.Get("x-message-id")] = true
	}
	require.Len(t, seen, 2*each, "every row reached the stream")
}

// TestNATSToHTTPEndToEnd: a NATS message goes through ingest, relay and
// deliver to an HTTP destination once, with the relay headers.
func TestNATSToHTTPEndToEnd(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	s := newNATSStream(t, natstest.URL())
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := with(destinationEnv(natsSourceEnv(db.env(), natstest.URL(), s), rc.URL),
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	startServing(t, "ingest", env)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)
	body := `{"id":"evt-e2e","type":"order.paid","customer":"c-5"}`
	s.publish(t, body, "X-Correlation-Id", "corr-e2e", "X-Tenant", "acme")
	s.publish(t, body) // a repeat: stored once, delivered once

	conn := db.connect(t)
	require.Eventually(t, func() bool {
		var state string
		err := conn.QueryRow(context.Background(), `SELECT state FROM outbox`).Scan(&state)
		return err == nil && state == "sent"
	}, 60*time.Second, 20*time.Millisecond)
	waitAcked(t, s, "queuebox-jet")
	got := rc.Requests()
	require.Len(t, got, 1, "delivered once")
	r := got[0]
	require.JSONEq(t, body, r.Body)
	require.Equal(t, "jet.order.paid", r.Header.Get("X-Topic"))
	require.Equal(t, "c-5", r.Header.Get("X-Message-Key"))
	require.Equal(t, "jet", r.Header.Get("x-source"))
	require.Equal(t, "evt-e2e", r.Header.Get("x-idempotency-key"))
	require.Equal(t, "corr-e2e", r.Header.Get("X-Correlation-Id"))
	require.Equal(t, "acme", r.Header.Get("X-Tenant"))
	var inboxState string
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT state FROM inbox`).Scan(&inboxState))
	require.Equal(t, "processed", inboxState)
}
