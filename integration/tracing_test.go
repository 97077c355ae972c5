package integration

import (
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// otlpReceiver is an OTLP/HTTP trace endpoint: it decodes every export
// request and keeps the spans, and counts the connections made to it.
type otlpReceiver struct {
	srv   *httptest.Server
	conns atomic.Int64
	mu    sync.Mutex
	spans []*tracepb.Span
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	r := &otlpReceiver{}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.export))
	r.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.conns.Add(1)
		}
	}
	r.srv.Start()
	t.Cleanup(r.srv.Close)
	return r
}

func (r *otlpReceiver) export(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	var msg collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &msg)
	}
	if err != nil || req.URL.Path != "/v1/traces" {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			r.spans = append(r.spans, ss.GetSpans()...)
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// waitSpan returns the first span named name of the trace traceID.
func (r *otlpReceiver) waitSpan(t *testing.T, traceID, name string) *tracepb.Span {
	t.Helper()
	var found *tracepb.Span
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, s := range r.spans {
			if hex.EncodeToString(s.GetTraceId()) == traceID && s.GetName() == name {
				found = s
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "span %q of trace %s", name, traceID)
	return found
}

// tracingVars turn tracing on towards r, exporting every 50 ms.
func (r *otlpReceiver) tracingVars() []string {
	return []string{"OTEL_EXPORTER_OTLP_ENDPOINT", r.srv.URL, "OTEL_BSP_SCHEDULE_DELAY", "50"}
}

// tracingEnv is env with r's tracingVars.
func tracingEnv(env map[string]string, r *otlpReceiver) map[string]string {
	return with(env, r.tracingVars()...)
}

const (
	senderTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	senderSpanID  = "00f067aa0ba902b7"
	senderParent  = "00-" + senderTraceID + "-" + senderSpanID + "-01"
)

// parentOf splits a traceparent into its trace id and parent span id.
func parentOf(t *testing.T, traceparent string) (traceID, spanID string) {
	t.Helper()
	parts := strings.Split(traceparent, "-")
	require.Len(t, parts, 4, traceparent)
	return parts[1], parts[2]
}

// stripeToken and trustedStripe give the stripe source of
// startStripeStack a bearer token and trust its senders' trace context.
const stripeToken = "str1pe-s3nder-t0ken-0123"

var trustedStripe = []string{"QUEUEBOX_SOURCES_STRIPE_AUTH_TYPE", "bearer", "QUEUEBOX_SOURCES_STRIPE_AUTH_TOKEN", stripeToken,
	"QUEUEBOX_SOURCES_STRIPE_TRUSTTRACECONTEXT", "true"}

// TestTracingWebhookRelayedAndDeliveredIsOneTrace: a webhook posted with
// a traceparent to a source that trusts its senders gets a server span in the sender's trace; the row relayed
// from it is delivered by a send span, a child of that server span, and
// the receiver gets a traceparent whose parent is the send span.
func TestTracingWebhookRelayedAndDeliveredIsOneTrace(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	otlp := newOTLPReceiver(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	ingest := startStripeStack(t, db, receiverYAML(rc.URL), append(otlp.tracingVars(), trustedStripe...)...)

	code, resp, _ := post(t, ingest.url("/inbox/stripe"), `{"id":"e1","type":"payment.succeeded"}`,
		"traceparent", senderParent, "Authorization", "Bearer "+stripeToken)
	require.Equal(t, http.StatusAccepted, code, resp)
	waitOutbox(t, db, "payment.succeeded", "sent")

	server := requireOneTrace(t, otlp, rc, "POST /inbox/stripe", tracepb.Span_SPAN_KIND_SERVER)
	otlp.waitLinked(t, "relay forward", server.GetSpanId())
}

// waitLinked waits for a span named name that links to the span spanID.
func (r *otlpReceiver) waitLinked(t *testing.T, name string, spanID []byte) {
	t.Helper()
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, s := range r.spans {
			for _, l := range s.GetLinks() {
				if s.GetName() == name && string(l.GetSpanId()) == string(spanID) {
					return true
				}
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "a %q span linked to the row", name)
}

// insertTracedRow writes an outbox row whose headers carry the sender's
// traceparent and returns its id.
func insertTracedRow(t *testing.T, db database, topic string) string {
	t.Helper()
	var id string
	require.NoError(t, db.connect(t).QueryRow(context.Background(), `INSERT INTO outbox (topic, key, payload, headers)
		VALUES ($1, 'k-1', '{"region":"eu","n":7}', jsonb_build_object('traceparent', $2::text)) RETURNING id::text`,
		topic, senderParent).Scan(&id))
	return id
}

// requireSendSpan checks that the traceparent a destination received is
// the child of QueueBox's send span, itself the child of the row's
// context, with the messaging attributes of system.
func requireSendSpan(t *testing.T, otlp *otlpReceiver, received, destination, system, id string) {
	t.Helper()
	traceID, parentID := parentOf(t, received)
	require.Equal(t, senderTraceID, traceID, "the destination continues the application's trace")
	send := otlp.waitSpan(t, senderTraceID, "send "+destination)
	require.Equal(t, tracepb.Span_SPAN_KIND_PRODUCER, send.GetKind())
	require.Equal(t, senderSpanID, hex.EncodeToString(send.GetParentSpanId()), "the send span continues the row")
	require.Equal(t, hex.EncodeToString(send.GetSpanId()), parentID, "the destination's parent is the send span")
	attrs := map[string]string{}
	for _, kv := range send.GetAttributes() {
		attrs[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	require.Equal(t, system, attrs["messaging.system"])
	require.Equal(t, destination, attrs["messaging.destination.name"])
	require.Equal(t, id, attrs["messaging.message.id"])
	require.Equal(t, "sent", attrs["queuebox.outcome"])
}

// TestTracingOverNATSHeaders: the traceparent travels as a NATS header.
func TestTracingOverNATSHeaders(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	otlp := newOTLPReceiver(t)
	s := newNATSStream(t, natstest.URL())
	startServing(t, "deliver", tracingEnv(natsDestinationEnv(db.env(), s.prefix+".{{ topic }}"), otlp))
	id := insertTracedRow(t, db, "order.created")
	waitOutbox(t, db, "order.created", "sent")
	msgs := natstest.Messages(t, s.stream)
	require.Len(t, msgs, 1)
	requireSendSpan(t, otlp, msgs[0].Header.Get("traceparent"), "events", "nats", id)
}

// TestTracingOverAMQPHeaders: the traceparent travels as an AMQP header.
func TestTracingOverAMQPHeaders(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	otlp := newOTLPReceiver(t)
	r := newRabbit(t)
	exchange, queue := rabbitName("traced"), rabbitName("traced-out")
	r.queue(queue, exchange, "#")
	startServing(t, "deliver", tracingEnv(with(db.env(),
		"QUEUEBOX_DESTINATIONS_EVENTS_TYPE", "rabbitmq", "QUEUEBOX_DESTINATIONS_EVENTS_URL", rabbitURL(),
		"QUEUEBOX_DESTINATIONS_EVENTS_EXCHANGE", exchange, "QUEUEBOX_DESTINATIONS_EVENTS_EXCHANGETYPE", "topic",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**", "QUEUEBOX_ROUTES_0_DESTINATION", "events",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20"), otlp))
	id := insertTracedRow(t, db, "order.created")
	waitOutbox(t, db, "order.created", "sent")
	got := r.drain(queue)
	require.Len(t, got, 1)
	received, _ := got[0].Headers["traceparent"].(string)
	requireSendSpan(t, otlp, received, "events", "rabbitmq", id)
}

// TestTracingOverKafkaHeaders: the traceparent travels as a Kafka record
// header.
func TestTracingOverKafkaHeaders(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	otlp := newOTLPReceiver(t)
	addr, topic := kafkaCluster(t, 1)
	startServing(t, "deliver", tracingEnv(with(db.env(),
		"QUEUEBOX_DESTINATIONS_EVENTS_TYPE", "kafka", "QUEUEBOX_DESTINATIONS_EVENTS_BOOTSTRAPSERVERS", addr,
		"QUEUEBOX_DESTINATIONS_EVENTS_TOPIC", topic,
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**", "QUEUEBOX_ROUTES_0_DESTINATION", "events",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20"), otlp))
	id := insertTracedRow(t, db, "order.created")
	waitOutbox(t, db, "order.created", "sent")
	recs := kafkatest.Records(t, addr, topic)
	require.Len(t, recs, 1)
	received := kafkatest.Header(recs[0], "traceparent")
	require.Len(t, received, 1)
	requireSendSpan(t, otlp, received[0], "events", "kafka", id)
}

// TestTracingOffMakesNoConnection: with tracing off (OTEL_TRACES_EXPORTER
// none beside an endpoint, which alone would turn it on) no process
// connects to the endpoint, and the row's traceparent travels unchanged.
func TestTracingOffMakesNoConnection(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	otlp := newOTLPReceiver(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := with(tracingEnv(db.env(), otlp), "OTEL_TRACES_EXPORTER", "none",
		"QUEUEBOX_DESTINATIONS_RECEIVER_TYPE", "http", "QUEUEBOX_DESTINATIONS_RECEIVER_BASEURL", rc.URL,
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**", "QUEUEBOX_ROUTES_0_DESTINATION", "receiver",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20")
	deliver := startServing(t, "deliver", env)
	conn := db.connect(t)
	_, err := conn.Exec(context.Background(), `INSERT INTO outbox (topic, payload, headers)
		VALUES ('order.created', '{}', jsonb_build_object('traceparent', $1::text))`, senderParent)
	require.NoError(t, err)
	waitOutbox(t, db, "order.created", "sent")
	deliver.stop(t, 30*time.Second)

	got := rc.Requests()
	require.Len(t, got, 1)
	require.Equal(t, senderParent, got[0].Header.Get("traceparent"))
	require.Zero(t, otlp.conns.Load(), "no exporter connection with tracing off")
}

// TestTracingRabbitMQInRelayedAndDeliveredIsOneTrace: a RabbitMQ message
// with a traceparent gets a receive span in the sender's trace; the row
// relayed from it is delivered by a send span, a child of that receive
// span, and the HTTP receiver's parent is the send span.
func TestTracingRabbitMQInRelayedAndDeliveredIsOneTrace(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	otlp := newOTLPReceiver(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	r := newRabbit(t)
	queue := rabbitName("traced-in")
	r.queue(queue, "", "")
	env := tracingEnv(configEnv(t, db, rabbitSourceYAML(queue, rabbitURL())+"    trustTraceContext: true\n"+receiverYAML(rc.URL),
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20"), otlp)
	startServing(t, "ingest", env).waitHTTP(t, "/health/ready", http.StatusOK)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	r.publish(queue, amqp.Publishing{Body: []byte(`{"messageId":"m-1","orderId":"o-1","type":"created"}`),
		Headers: amqp.Table{"traceparent": senderParent}})
	waitOutbox(t, db, "orders.created", "sent")

	requireOneTrace(t, otlp, rc, "receive orders-queue", tracepb.Span_SPAN_KIND_CONSUMER)
}

// requireOneTrace checks the trace of a message that came in with the
// sender's traceparent and was relayed to rc: the inbound span (name,
// kind) is the sender's child, the send span its child, and the receiver's
// parent is the send span. It returns the inbound span.
func requireOneTrace(t *testing.T, otlp *otlpReceiver, rc *brokertest.HTTPReceiver, name string,
	kind tracepb.Span_SpanKind) *tracepb.Span {
	t.Helper()
	got := rc.Requests()
	require.Len(t, got, 1)
	traceID, parentID := parentOf(t, got[0].Header.Get("traceparent"))
	require.Equal(t, senderTraceID, traceID, "the receiver continues the sender's trace")
	in := otlp.waitSpan(t, senderTraceID, name)
	require.Equal(t, kind, in.GetKind())
	require.Equal(t, senderSpanID, hex.EncodeToString(in.GetParentSpanId()))
	send := otlp.waitSpan(t, senderTraceID, "send receiver")
	require.Equal(t, tracepb.Span_SPAN_KIND_PRODUCER, send.GetKind())
	require.Equal(t, hex.EncodeToString(in.GetSpanId()), hex.EncodeToString(send.GetParentSpanId()),
		"the relayed row continues the inbound span")
	require.Equal(t, hex.EncodeToString(send.GetSpanId()), parentID, "the receiver's parent is the send span")
	return in
}

// TestTracingNATSInRelayedAndDeliveredIsOneTrace: the RabbitMQ case over
// a NATS JetStream source: the message's traceparent header parents the
// receive span, and the relayed row's delivery continues it.
func TestTracingNATSInRelayedAndDeliveredIsOneTrace(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	otlp := newOTLPReceiver(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	s := newNATSStream(t, natstest.URL())
	env := tracingEnv(natsSourceEnv(configEnv(t, db, receiverYAML(rc.URL), "QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20"),
		natstest.URL(), s), otlp)
	env = with(env, "QUEUEBOX_SOURCES_JET_TRUSTTRACECONTEXT", "true")
	startServing(t, "ingest", env).waitHTTP(t, "/health/ready", http.StatusOK)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	s.publish(t, `{"id":"evt-traced","type":"order.paid","customer":"c-1"}`, "traceparent", senderParent)
	waitOutbox(t, db, "jet.order.paid", "sent")

	requireOneTrace(t, otlp, rc, "receive jet", tracepb.Span_SPAN_KIND_CONSUMER)
}

// TestTracingKafkaInRelayedAndDeliveredIsOneTrace: the same over a Kafka
// source (kfake): the record's traceparent header parents the receive
// span.
func TestTracingKafkaInRelayedAndDeliveredIsOneTrace(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	otlp := newOTLPReceiver(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	addr, topic := kafkaCluster(t, 1)
	cl := kafkatest.Client(t, addr)
	env := tracingEnv(kafkaSourceEnv(configEnv(t, db, receiverYAML(rc.URL), "QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20"),
		addr, topic), otlp)
	env = with(env, "QUEUEBOX_SOURCES_KAF_TRUSTTRACECONTEXT", "true")
	startServing(t, "ingest", env).waitHTTP(t, "/health/ready", http.StatusOK)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	produceKafka(t, cl, topic, []byte("customer-1"), `{"id":"kaf-traced","type":"order.created"}`, "traceparent", senderParent)
	waitOutbox(t, db, "kaf.order.created", "sent")

	requireOneTrace(t, otlp, rc, "receive kaf", tracepb.Span_SPAN_KIND_CONSUMER)
}

// TestTracingUntrustedSenderDoesNotSteerTheTrace: a webhook to a source
// that does not trust its senders (the default) with a sampled
// traceparent, a tracestate and baggage. Under parentbased_traceidratio
// 0 nothing is sampled and the receiver's traceparent is in a trace of
// QueueBox's own; under the default sampler the server span is a root
// linked to the sender's span. The receiver gets neither the sender's
// tracestate nor its baggage.
func TestTracingUntrustedSenderDoesNotSteerTheTrace(t *testing.T) {
	t.Parallel()
	for _, ratio0 := range []bool{true, false} {
		db := newDatabase(t)
		otlp := newOTLPReceiver(t)
		rc := brokertest.NewHTTPReceiver(t, nil)
		vars := otlp.tracingVars()
		if ratio0 {
			vars = append(vars, "OTEL_TRACES_SAMPLER", "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG", "0")
		}
		ingest := startStripeStack(t, db, receiverYAML(rc.URL), vars...)
		code, resp, _ := post(t, ingest.url("/inbox/stripe"), `{"id":"e1","type":"payment.succeeded"}`,
			"traceparent", senderParent, "tracestate", "vendor=steer", "baggage", "tenant=admin")
		require.Equal(t, http.StatusAccepted, code, resp)
		waitOutbox(t, db, "payment.succeeded", "sent")

		got := rc.Requests()
		require.Len(t, got, 1)
		require.NotContains(t, got[0].Header.Get("tracestate"), "vendor=steer")
		require.NotContains(t, got[0].Header.Get("baggage"), "tenant=admin")
		traceID, _ := parentOf(t, got[0].Header.Get("traceparent"))
		require.NotEqual(t, senderTraceID, traceID, "the sender does not choose the trace id")
		if ratio0 {
			require.True(t, strings.HasSuffix(got[0].Header.Get("traceparent"), "-00"), "ratio 0 samples nothing")
			otlp.mu.Lock()
			n := len(otlp.spans)
			otlp.mu.Unlock()
			require.Zero(t, n, "no span is exported under ratio 0")
			continue
		}
		server := otlp.waitSpan(t, traceID, "POST /inbox/stripe")
		require.Empty(t, server.GetParentSpanId(), "the server span is a root")
		require.Len(t, server.GetLinks(), 1)
		require.Equal(t, senderTraceID, hex.EncodeToString(server.GetLinks()[0].GetTraceId()))
		require.Equal(t, senderSpanID, hex.EncodeToString(server.GetLinks()[0].GetSpanId()))
	}
}

// TestTracingOffUntrustedSenderContextIsNotRelayed: with tracing off no
// span of QueueBox's replaces a webhook sender's traceparent, so a source
// that does not trust its senders (the default) stores none of their
// context: the receiver of the relayed row gets neither the sender's
// traceparent nor its tracestate and baggage.
func TestTracingOffUntrustedSenderContextIsNotRelayed(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	ingest := startStripeStack(t, db, receiverYAML(rc.URL))
	code, resp, _ := post(t, ingest.url("/inbox/stripe"), `{"id":"e1","type":"payment.succeeded"}`,
		"traceparent", senderParent, "tracestate", "vendor=steer", "baggage", "tenant=admin")
	require.Equal(t, http.StatusAccepted, code, resp)
	waitOutbox(t, db, "payment.succeeded", "sent")

	var stored string
	require.NoError(t, db.connect(t).QueryRow(context.Background(),
		`SELECT headers::text FROM inbox WHERE idempotency_key = 'e1'`).Scan(&stored))
	for _, name := range []string{"traceparent", "tracestate", "baggage"} {
		require.NotContains(t, stored, name, "the inbox row stores no %s of the sender", name)
	}
	got := rc.Requests()
	require.Len(t, got, 1)
	require.NotContains(t, got[0].Header.Get("traceparent"), senderTraceID, "the sender does not choose the trace id")
	require.Empty(t, got[0].Header.Get("tracestate"))
	require.NotContains(t, got[0].Header.Get("baggage"), "tenant=admin")
}
