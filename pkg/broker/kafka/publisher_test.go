package kafka_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	kafkab "github.com/alternayte/queuebox/pkg/broker/kafka"
	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/secret"
)

func row(id, topic, key string) *queuebox.OutboxMessage {
	return &queuebox.OutboxMessage{ID: id, Topic: topic, Key: key, HasKey: key != "", AggregateType: "order",
		Payload: []byte(`{"region":"eu"}`), Headers: map[string]string{"x-row": id}, MaxAttempts: 5}
}

func newPublisher(t *testing.T, opts kafkab.Options) *kafkab.Publisher {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	p, err := kafkab.New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func TestPublishRecordKey(t *testing.T) {
	t.Parallel()
	c, addr := kafkatest.Cluster(t)
	topic := kafkatest.Topic(t, c, 3)
	route := "{{ topic }}/{{ payload.region }}"
	cases := []struct {
		name, keyTemplate string
		route             *string
		key, want         string
		noKey             bool
	}{
		{name: "default is the row key", key: "customer-7", want: "customer-7"},
		{name: "keyTemplate", keyTemplate: "{{ topic }}:{{ key }}", key: "c1", want: "order.created:c1"},
		{name: "route template wins", keyTemplate: "{{ key }}", route: &route, key: "c1", want: "order.created/eu"},
		{name: "empty key sends no key", noKey: true},
	}
	for i, tc := range cases {
		p := newPublisher(t, kafkab.Options{Name: "keys", Conn: kafkab.Conn{BootstrapServers: addr},
			Topic: topic, KeyTemplate: tc.keyTemplate})
		m := row(tc.name, "order.created", tc.key)
		m.Attempt = i
		require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload, RoutingKeyTemplate: tc.route}))
	}
	got := map[string][]byte{}
	for _, r := range kafkatest.Records(t, addr, topic) {
		got[kafkatest.Header(r, kafkab.HeaderMessageID)[0]] = r.Key
	}
	for _, tc := range cases {
		if tc.noKey {
			require.Nil(t, got[tc.name], tc.name)
			continue
		}
		require.Equal(t, tc.want, string(got[tc.name]), tc.name)
	}
}

func TestPublishKeyTemplatePlaceholders(t *testing.T) {
	t.Parallel()
	_, err := kafkab.New(kafkab.Options{Name: "bad", Conn: kafkab.Conn{BootstrapServers: "127.0.0.1:1"},
		Topic: "t", KeyTemplate: "{{ payload.id }}"})
	require.ErrorContains(t, err, "keyTemplate")
}

func TestPublishTopicTemplateAndTopicFrom(t *testing.T) {
	t.Parallel()
	c, addr := kafkatest.Cluster(t)
	require.NoError(t, c.CreateTopic("public.order.v1", 1, nil))
	require.NoError(t, c.CreateTopic("billing.events", 1, nil))

	tmpl := newPublisher(t, kafkab.Options{Name: "tmpl", Conn: kafkab.Conn{BootstrapServers: addr},
		Topic: "public.{{ aggregateType }}.v1"})
	m := row("r1", "order.created", "k")
	require.NoError(t, tmpl.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload}))
	require.Len(t, kafkatest.Records(t, addr, "public.order.v1"), 1)

	from := newPublisher(t, kafkab.Options{Name: "from", Conn: kafkab.Conn{BootstrapServers: addr},
		Topic: "ignored", TopicFrom: "topic"})
	m = row("r2", "billing.events", "k")
	require.NoError(t, from.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload}))
	recs := kafkatest.Records(t, addr, "billing.events")
	require.Len(t, recs, 1)
	require.Equal(t, []string{"r2"}, kafkatest.Header(recs[0], kafkab.HeaderMessageID))

	// An empty address fails the publish; the row takes the retry path.
	m = row("r3", "", "k")
	require.ErrorContains(t, from.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload}), "empty")
}

func TestPublishHeaders(t *testing.T) {
	t.Parallel()
	c, addr := kafkatest.Cluster(t)
	topic := kafkatest.Topic(t, c, 1)
	p := newPublisher(t, kafkab.Options{Name: "h", Conn: kafkab.Conn{BootstrapServers: addr}, Topic: topic,
		Headers: map[string]string{"x-env": "prod", "X-Row": "static"}})
	m := row("r1", "order.created", "k")
	m.Attempt = 2
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{"out":1}`)}))
	recs := kafkatest.Records(t, addr, topic)
	require.Len(t, recs, 1)
	r := recs[0]
	require.Equal(t, `{"out":1}`, string(r.Value))
	require.Equal(t, []string{"r1"}, kafkatest.Header(r, "x-message-id"))
	require.Equal(t, []string{"order.created"}, kafkatest.Header(r, "x-topic"))
	require.Equal(t, []string{"2"}, kafkatest.Header(r, "x-attempt"))
	require.Equal(t, []string{"prod"}, kafkatest.Header(r, "x-env"))
	require.Equal(t, []string{"r1"}, kafkatest.Header(r, "x-row"), "the row header wins over X-Row")
	require.Nil(t, kafkatest.Header(r, "X-Row"))
}

// TestPublishRetriesAfterProduceErrors injects produce errors with kfake:
// each publish fails while they last and sends nothing, and the same
// publisher sends once they stop.
func TestPublishRetriesAfterProduceErrors(t *testing.T) {
	t.Parallel()
	c, addr := kafkatest.Cluster(t)
	topic := kafkatest.Topic(t, c, 1)
	p := newPublisher(t, kafkab.Options{Name: "faulty", Conn: kafkab.Conn{BootstrapServers: addr}, Topic: topic})
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.PolicyViolation, Count: -1})
	m := row("r1", "order.created", "k")
	for range 2 {
		require.Error(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload}))
	}
	require.Empty(t, kafkatest.Records(t, addr, topic))
	fault.Remove()
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload}))
	require.Len(t, kafkatest.Records(t, addr, topic), 1)
}

// TestPublishErrorHasNoPassword fails against a SASL listener with a
// wrong password and checks that no error text holds it.
func TestPublishErrorHasNoPassword(t *testing.T) {
	t.Parallel()
	c, addr := kafkatest.Cluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", "right"))
	_ = c
	p := newPublisher(t, kafkab.Options{Name: "sasl", Timeout: 3 * time.Second, Conn: kafkab.Conn{BootstrapServers: addr,
		SecurityProtocol: "SASL_PLAINTEXT", SaslMechanism: "PLAIN", SaslUsername: "admin", SaslPassword: secret.New("wrong-pw-123")},
		Topic: "t"})
	m := row("r1", "order.created", "k")
	err := p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "wrong-pw-123")
}
