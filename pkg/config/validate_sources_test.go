package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// One source of each kind, named without "-" so variables reach it.
const (
	httpSource   = "sources:\n  hooks:\n    type: http\n    path: /hooks\n    idempotencyKeyPath: $.id\n    eventTypePath: $.type\n"
	rabbitSource = "sources:\n  queue:\n    type: rabbitmq\n    queueName: incoming\n    connectionUrl: amqp://rabbit:5672\n"
	kafkaSource  = "sources:\n  stream:\n    type: kafka\n    bootstrapServers: kafka:9092\n    topics: [orders]\n    groupId: qb\n"
	natsSource   = "sources:\n  jet:\n    type: nats\n    servers: nats://nats:4222\n    stream: ORDERS\n    durable: qb\n"
)

func TestSourceCommonRules(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "consumption", extra: httpSource, env: []string{"QUEUEBOX_SOURCES_HOOKS_CONSUMPTION=poll"},
			want: []string{`sources.hooks.consumption (QUEUEBOX_SOURCES_HOOKS_CONSUMPTION): must be one of push, pull (in this letter case), got "poll"`}},
		{name: "blank topic on a push source", extra: httpSource + "    topic: \" \"\n",
			want: []string{"sources.hooks.topic (QUEUEBOX_SOURCES_HOOKS_TOPIC): must not be blank on a push source"}},
		{name: "empty topic variable", extra: rabbitSource, env: []string{"QUEUEBOX_SOURCES_QUEUE_TOPIC="},
			want: []string{"sources.queue.topic (QUEUEBOX_SOURCES_QUEUE_TOPIC): must not be blank on a push source"}},
		{name: "deep scan", extra: httpSource, env: []string{"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH=$..id"},
			want: []string{`sources.hooks.idempotencyKeyPath (QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH): must be a definite JSONPath`, `got "$..id"`}},
		{name: "wildcard", extra: httpSource, env: []string{"QUEUEBOX_SOURCES_HOOKS_AGGREGATEIDPATH=$.items[*].id"},
			want: []string{`sources.hooks.aggregateIdPath (QUEUEBOX_SOURCES_HOOKS_AGGREGATEIDPATH): must be a definite JSONPath`}},
		{name: "filter expression", extra: httpSource, env: []string{"QUEUEBOX_SOURCES_HOOKS_EVENTTYPEPATH=$.events[?(@.main)].type"},
			want: []string{`sources.hooks.eventTypePath (QUEUEBOX_SOURCES_HOOKS_EVENTTYPEPATH): must be a definite JSONPath`}},
		{name: "http source with default topic and no eventTypePath", extra: "sources:\n  hooks:\n    type: http\n    path: /hooks\n    idempotencyKeyPath: $.id\n",
			want: []string{`sources.hooks.eventTypePath (QUEUEBOX_SOURCES_HOOKS_EVENTTYPEPATH): required because sources.hooks.topic (QUEUEBOX_SOURCES_HOOKS_TOPIC) is "{{ eventType }}"`}},
		{name: "broker source reading eventType", extra: kafkaSource, env: []string{"QUEUEBOX_SOURCES_STREAM_TOPIC=kafka.{{eventType}}"},
			want: []string{`sources.stream.eventTypePath (QUEUEBOX_SOURCES_STREAM_EVENTTYPEPATH): required because`, "sources.stream.eventTypeFromHeader (QUEUEBOX_SOURCES_STREAM_EVENTTYPEFROMHEADER)"}},
		{name: "nats source reading eventType", extra: natsSource + "    topic: \"orders.{{ eventType }}\"\n",
			want: []string{`sources.jet.eventTypePath (QUEUEBOX_SOURCES_JET_EVENTTYPEPATH): required because`, "sources.jet.eventTypeFromHeader (QUEUEBOX_SOURCES_JET_EVENTTYPEFROMHEADER)"}},
		{name: "rabbitmq source reading eventType", extra: rabbitSource + "    topic: \"orders.{{ eventType }}\"\n",
			want: []string{`sources.queue.eventTypePath (QUEUEBOX_SOURCES_QUEUE_EVENTTYPEPATH): required because`, "sources.queue.eventTypeFromHeader (QUEUEBOX_SOURCES_QUEUE_EVENTTYPEFROMHEADER)"}},
		{name: "source transform onError", extra: httpSource + "    transform:\n      expression: $\n      onError: dead\n",
			want: []string{`sources.hooks.transform.onError (QUEUEBOX_SOURCES_HOOKS_TRANSFORM_ONERROR): must be one of Fail, Skip, Dead`}},
		{name: "source of no kind", extra: "sources:\n  odd:\n    topic: x\n",
			want: []string{"sources.odd (QUEUEBOX_SOURCES_ODD): cannot select the kind", "path and idempotencyKeyPath (http), or queueName and connectionUrl (rabbitmq), or bootstrapServers and topics and groupId (kafka), or servers and stream and durable (nats)"}},
		{name: "http type without path", extra: "sources:\n  hooks:\n    type: http\n    idempotencyKeyPath: $.id\n",
			want: []string{"sources.hooks.path (QUEUEBOX_SOURCES_HOOKS_PATH): required, because type names the http kind"}},
	})
}

func TestSourceEventTypeAccepts(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, extra string }{
		{"pull source needs no event type", "sources:\n  pulled:\n    type: http\n    path: /p\n    idempotencyKeyPath: $.id\n    consumption: pull\n"},
		{"broker default topic", rabbitSource},
		{"rabbitmq header declares the event type", rabbitSource + "    topic: \"orders.{{ eventType }}\"\n    eventTypeFromHeader: true\n"},
		{"header declares the event type", kafkaSource + "    topic: \"{{ eventType }}\"\n    eventTypeFromHeader: true\n"},
		{"path gives the event type", natsSource + "    topic: \"{{ eventType }}\"\n    eventTypePath: $.type\n"},
		{"literal topic", "sources:\n  hooks:\n    type: http\n    path: /h\n    idempotencyKeyPath: $.id\n    topic: fixed.topic\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mustLoad(t, testOptions(baseYAML+tc.extra))
		})
	}
}

func TestHTTPSourceRules(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "rate limit zero", extra: httpSource + "    rateLimit:\n      requestsPerMinute: 0\n",
			want: []string{"sources.hooks.rateLimit.requestsPerMinute (QUEUEBOX_SOURCES_HOOKS_RATELIMIT_REQUESTSPERMINUTE): must be above 0"}},
		{name: "two sources on one path", extra: httpSource + "  other:\n    type: http\n    path: /hooks/\n    idempotencyKeyPath: $.id\n    consumption: pull\n",
			want: []string{"sources.other.path (QUEUEBOX_SOURCES_OTHER_PATH): answers at /inbox/hooks, the same inbox path as source hooks"}},
		{name: "hmac tolerance zero", extra: httpSource + "    auth:\n      secret: s\n      timestampTolerance: 0\n",
			want: []string{"sources.hooks.auth.timestampTolerance (QUEUEBOX_SOURCES_HOOKS_AUTH_TIMESTAMPTOLERANCE): must be above 0"}},
		{name: "timestamp format without header", extra: httpSource + "    auth:\n      secret: s\n      signaturePayloadFormat: timestamp-dot-body\n",
			want: []string{"sources.hooks.auth.signaturePayloadFormat (QUEUEBOX_SOURCES_HOOKS_AUTH_SIGNATUREPAYLOADFORMAT): TIMESTAMP_DOT_BODY needs sources.hooks.auth.timestampHeader (QUEUEBOX_SOURCES_HOOKS_AUTH_TIMESTAMPHEADER)"}},
		{name: "unknown payload format", extra: httpSource + "    auth:\n      secret: s\n      signaturePayloadFormat: Body\n",
			want: []string{`sources.hooks.auth.signaturePayloadFormat (QUEUEBOX_SOURCES_HOOKS_AUTH_SIGNATUREPAYLOADFORMAT): must be body (or BODY) or timestamp-dot-body (or TIMESTAMP_DOT_BODY), got "Body"`}},
		{name: "hmac algorithm", extra: httpSource + "    auth:\n      secret: s\n      algorithm: hmacsha256\n",
			want: []string{`sources.hooks.auth.algorithm (QUEUEBOX_SOURCES_HOOKS_AUTH_ALGORITHM): must be one of HmacSHA256, HmacSHA512`}},
		{name: "trusted trace context without auth", extra: httpSource + "    trustTraceContext: true\n",
			want: []string{"sources.hooks.trustTraceContext (QUEUEBOX_SOURCES_HOOKS_TRUSTTRACECONTEXT): true needs an auth block"}},
		{name: "api-key type without key", extra: httpSource + "    auth:\n      type: api-key\n      headerName: X-Key\n",
			want: []string{"sources.hooks.auth.key (QUEUEBOX_SOURCES_HOOKS_AUTH_KEY): required, because type names the api-key kind"}},
	})
}

func TestSourceAuthDefaults(t *testing.T) {
	t.Parallel()
	load := func(auth string) *SourceAuth {
		cfg := mustLoad(t, testOptions(baseYAML+httpSource+"    auth:\n"+auth))
		return cfg.Sources["hooks"].Auth
	}
	a := load("      type: hmac\n      secret: s\n")
	require.Equal(t, AuthHMAC, a.Kind)
	require.Equal(t, "X-Signature", a.HeaderName)
	require.Equal(t, "sha256=", *a.SignaturePrefix)
	require.Equal(t, PayloadBody, a.SignaturePayloadFormat)
	require.Equal(t, "HmacSHA256", a.Algorithm)
	require.Equal(t, 300000, a.TimestampTolerance)

	a = load("      secret: s\n      signaturePrefix: \"\"\n      timestampHeader: X-Timestamp\n")
	require.Equal(t, "", *a.SignaturePrefix, "an explicit empty prefix means none")
	require.Equal(t, PayloadTimestampDotBody, a.SignaturePayloadFormat)

	for written, want := range map[string]string{"body": PayloadBody, "BODY": PayloadBody, "timestamp-dot-body": PayloadTimestampDotBody, "TIMESTAMP_DOT_BODY": PayloadTimestampDotBody} {
		a = load("      secret: s\n      timestampHeader: X-Ts\n      signaturePayloadFormat: " + written + "\n")
		require.Equal(t, want, a.SignaturePayloadFormat, written)
	}

	a = load("      type: api-key\n      key: k\n")
	require.Equal(t, "X-API-Key", a.HeaderName)
	a = load("      token: t\n")
	require.Equal(t, AuthBearer, a.Kind)
}

func TestBrokerSourceRules(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "rabbitmq prefetchCount", extra: rabbitSource, env: []string{"QUEUEBOX_SOURCES_QUEUE_PREFETCHCOUNT=0"},
			want: []string{"sources.queue.prefetchCount (QUEUEBOX_SOURCES_QUEUE_PREFETCHCOUNT): must be above 0"}},
		{name: "kafka blank topic entry", extra: "sources:\n  stream:\n    bootstrapServers: k:9092\n    groupId: g\n    topics: [orders, \" \"]\n",
			want: []string{"sources.stream.topics[1] (QUEUEBOX_SOURCES_STREAM_TOPICS_1): must not be blank"}},
		{name: "kafka empty topics", extra: "sources:\n  stream:\n    type: kafka\n    bootstrapServers: k:9092\n    groupId: g\n    topics: []\n",
			want: []string{"sources.stream.topics (QUEUEBOX_SOURCES_STREAM_TOPICS): required, because type names the kafka kind"}},
		{name: "kafka autoOffsetReset", extra: kafkaSource, env: []string{"QUEUEBOX_SOURCES_STREAM_AUTOOFFSETRESET=newest"},
			want: []string{`sources.stream.autoOffsetReset (QUEUEBOX_SOURCES_STREAM_AUTOOFFSETRESET): must be one of earliest, latest`}},
		{name: "kafka maxPollRecords", extra: kafkaSource, env: []string{"QUEUEBOX_SOURCES_STREAM_MAXPOLLRECORDS=0"},
			want: []string{"sources.stream.maxPollRecords (QUEUEBOX_SOURCES_STREAM_MAXPOLLRECORDS): must be above 0"}},
		{name: "kafka SASL", extra: kafkaSource, env: []string{"QUEUEBOX_SOURCES_STREAM_SECURITYPROTOCOL=SASL_PLAINTEXT", "QUEUEBOX_SOURCES_STREAM_SASLUSERNAME=u"},
			want: []string{
				"sources.stream.saslMechanism (QUEUEBOX_SOURCES_STREAM_SASLMECHANISM): required by sources.stream.securityProtocol (QUEUEBOX_SOURCES_STREAM_SECURITYPROTOCOL) SASL_PLAINTEXT",
				"sources.stream.saslPassword (QUEUEBOX_SOURCES_STREAM_SASLPASSWORD): required by",
			}},
		{name: "nats username without password", extra: natsSource, env: []string{"QUEUEBOX_SOURCES_JET_USERNAME=u"},
			want: []string{"sources.jet.password (QUEUEBOX_SOURCES_JET_PASSWORD): required because sources.jet.username (QUEUEBOX_SOURCES_JET_USERNAME) is set"}},
		{name: "nats token and username", extra: natsSource, env: []string{"QUEUEBOX_SOURCES_JET_USERNAME=u", "QUEUEBOX_SOURCES_JET_PASSWORD=p", "QUEUEBOX_SOURCES_JET_TOKEN=t"},
			want: []string{"sources.jet.token (QUEUEBOX_SOURCES_JET_TOKEN): must not be set together with"}},
		{name: "nats ackWaitMs", extra: natsSource, env: []string{"QUEUEBOX_SOURCES_JET_ACKWAITMS=0"},
			want: []string{"sources.jet.ackWaitMs (QUEUEBOX_SOURCES_JET_ACKWAITMS): must be above 0"}},
		{name: "nats batchSize", extra: natsSource, env: []string{"QUEUEBOX_SOURCES_JET_BATCHSIZE=0"},
			want: []string{"sources.jet.batchSize (QUEUEBOX_SOURCES_JET_BATCHSIZE): must be above 0"}},
	})
}

func TestBrokerSourceDefaults(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+rabbitSource))
	s := cfg.Sources["queue"]
	require.Equal(t, "queue", s.Name)
	require.Equal(t, KindRabbitMQ, s.Kind)
	require.Equal(t, "{{ source }}", s.Topic)
	require.Equal(t, "$.id", s.IdempotencyKeyPath)
	require.Equal(t, ConsumptionPush, s.Consumption)
	require.Equal(t, 10, s.PrefetchCount)
	require.Equal(t, AttributeHeaders{IdempotencyKey: "x-idempotency-key", AggregateID: "x-aggregate-id", EventType: "x-event-type"}, s.AttributeHeaders)

	cfg = mustLoad(t, testOptions(baseYAML+httpSource))
	require.Equal(t, "{{ eventType }}", cfg.Sources["hooks"].Topic)
}

func TestFilterRules(t *testing.T) {
	t.Parallel()
	filter := func(rules string) string { return rabbitSource + "    filter:\n" + rules }
	const p = "sources.queue.filter."
	runRefusals(t, []refusal{
		{name: "header missing", extra: filter("      require:\n        - equals: acme\n"),
			want: []string{p + "require[0].header (QUEUEBOX_SOURCES_QUEUE_FILTER_REQUIRE_0_HEADER): required"}},
		{name: "no test", extra: filter("      exclude:\n        - header: x-test\n"),
			want: []string{p + "exclude[0] (QUEUEBOX_SOURCES_QUEUE_FILTER_EXCLUDE_0): sets none of equals, in, matches and exists"}},
		{name: "two tests", extra: filter("      require:\n        - header: x-a\n          equals: a\n        - header: x-b\n          equals: b\n          matches: \"b.*\"\n"),
			want: []string{p + "require[1] (QUEUEBOX_SOURCES_QUEUE_FILTER_REQUIRE_1): sets more than one of equals, in, matches and exists"}},
		{name: "empty in", extra: filter("      require:\n        - header: x-region\n          in: []\n"),
			want: []string{p + "require[0].in (QUEUEBOX_SOURCES_QUEUE_FILTER_REQUIRE_0_IN): must not be empty"}},
		{name: "exists false", extra: filter("      exclude:\n        - header: x-test\n          exists: false\n"),
			want: []string{p + "exclude[0].exists (QUEUEBOX_SOURCES_QUEUE_FILTER_EXCLUDE_0_EXISTS): false is not allowed"}},
	})
}

func TestFilterFromTwoLevelListIndexes(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+rabbitSource,
		"QUEUEBOX_SOURCES_QUEUE_FILTER_REQUIRE_0_HEADER=x-region",
		"QUEUEBOX_SOURCES_QUEUE_FILTER_REQUIRE_0_IN_0=eu",
		"QUEUEBOX_SOURCES_QUEUE_FILTER_REQUIRE_0_IN_1=uk",
		"QUEUEBOX_SOURCES_QUEUE_FILTER_EXCLUDE_0_HEADER=x-test",
		"QUEUEBOX_SOURCES_QUEUE_FILTER_EXCLUDE_0_EXISTS=true",
	))
	f := cfg.Sources["queue"].Filter
	require.Equal(t, []FilterRule{{Header: "x-region", In: []string{"eu", "uk"}}}, f.Require)
	require.Len(t, f.Exclude, 1)
	require.Equal(t, "x-test", f.Exclude[0].Header)
	require.True(t, *f.Exclude[0].Exists)
}
