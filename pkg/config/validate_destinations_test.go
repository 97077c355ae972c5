package config

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// One destination of each kind, named without "-" so variables reach it.
const (
	httpDest   = "destinations:\n  hook:\n    type: http\n    baseUrl: https://hooks.example.com\n"
	rabbitDest = "destinations:\n  bus:\n    type: rabbitmq\n    url: amqp://rabbit:5672\n    exchange: events\n"
	kafkaDest  = "destinations:\n  log:\n    type: kafka\n    bootstrapServers: kafka:9092\n    topic: orders\n"
	natsDest   = "destinations:\n  subj:\n    type: nats\n    servers: nats://nats:4222\n    subject: orders\n"
)

func TestHTTPDestinationRules(t *testing.T) {
	t.Parallel()
	const baseURL = "destinations.hook.baseUrl (QUEUEBOX_DESTINATIONS_HOOK_BASEURL)"
	runRefusals(t, []refusal{
		{name: "relative baseUrl", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_BASEURL=hooks.example.com/events"},
			want: []string{baseURL + ": must be an absolute http or https URL"}},
		{name: "ftp baseUrl", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_BASEURL=ftp://hooks.example.com"},
			want: []string{baseURL + ": must be an absolute http or https URL"}},
		{name: "baseUrl with user info", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_BASEURL=https://user:hunter2@hooks.example.com"},
			want: []string{baseURL + ": must not hold a user name or a password"}},
		{name: "baseUrl without host", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_BASEURL=https:///events"},
			want: []string{baseURL + ": must name a host"}},
		{name: "dot-dot segment", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_PATH=/events/../admin"},
			want: []string{"destinations.hook.path (QUEUEBOX_DESTINATIONS_HOOK_PATH): must not hold a . or .. segment"}},
		{name: "dot segment", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_PATH=/./events"},
			want: []string{"destinations.hook.path (QUEUEBOX_DESTINATIONS_HOOK_PATH): must not hold a . or .. segment"}},
		{name: "encoded dot-dot segment", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_PATH=/%2e%2e/admin"},
			want: []string{"destinations.hook.path (QUEUEBOX_DESTINATIONS_HOOK_PATH): must not hold a . or .. segment"}},
		{name: "timeoutMs zero", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_TIMEOUTMS=0"},
			want: []string{"destinations.hook.timeoutMs (QUEUEBOX_DESTINATIONS_HOOK_TIMEOUTMS): must be above 0"}},
		{name: "oauth2 tokenUrl not absolute", extra: httpDest, env: []string{
			"QUEUEBOX_DESTINATIONS_HOOK_AUTH_CLIENTID=qb", "QUEUEBOX_DESTINATIONS_HOOK_AUTH_CLIENTSECRET=s", "QUEUEBOX_DESTINATIONS_HOOK_AUTH_TOKENURL=/oauth/token"},
			want: []string{"destinations.hook.auth.tokenUrl (QUEUEBOX_DESTINATIONS_HOOK_AUTH_TOKENURL): must be an absolute http or https URL"}},
		{name: "oauth2 missing keys", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_AUTH_TYPE=oauth2", "QUEUEBOX_DESTINATIONS_HOOK_AUTH_CLIENTID=qb"},
			want: []string{
				"destinations.hook.auth.clientSecret (QUEUEBOX_DESTINATIONS_HOOK_AUTH_CLIENTSECRET): required, because type names the oauth2 kind",
				"destinations.hook.auth.tokenUrl (QUEUEBOX_DESTINATIONS_HOOK_AUTH_TOKENURL): required, because type names the oauth2 kind",
			}},
		{name: "auth of no kind", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_AUTH_SCOPE=write"},
			want: []string{"destinations.hook.auth (QUEUEBOX_DESTINATIONS_HOOK_AUTH): cannot select the kind",
				"clientId and clientSecret and tokenUrl (oauth2), or username and password (basic), or headerValue (header)"}},
	})
}

func TestHTTPDestinationAccepts(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+httpDest, "QUEUEBOX_DESTINATIONS_HOOK_AUTH_HEADERVALUE=Bearer t"))
	d := cfg.Destinations["hook"]
	require.Equal(t, "/", d.Path)
	require.Equal(t, 30000, d.TimeoutMs)
	require.Equal(t, AuthHeader, d.Auth.Kind)
	require.Equal(t, "Authorization", d.Auth.HeaderName)

	cfg = mustLoad(t, testOptions(baseYAML+httpDest, "QUEUEBOX_DESTINATIONS_HOOK_AUTH_USERNAME=u", "QUEUEBOX_DESTINATIONS_HOOK_AUTH_PASSWORD=p"))
	require.Equal(t, AuthBasic, cfg.Destinations["hook"].Auth.Kind)
}

func TestBlockPrivateAddresses(t *testing.T) {
	t.Parallel()
	dns := fakeDNS{
		"localhost":         {"127.0.0.1"},
		"intranet.corp":     {"203.0.113.10", "10.1.2.3"},
		"metadata.internal": {"169.254.169.254"},
		"v6.internal":       {"fd00::1"},
		"public.example":    {"203.0.113.7"},
		"auth.corp":         {"192.168.1.10"},
	}
	cases := []struct {
		name, baseURL, tokenURL, want string
	}{
		{"loopback", "http://localhost:8080", "", "resolves to 127.0.0.1, a loopback address"},
		{"private among public", "https://intranet.corp", "", "resolves to 10.1.2.3, a private (site-local) address"},
		{"link-local", "http://metadata.internal", "", "resolves to 169.254.169.254, a link-local address"},
		{"unique-local", "https://v6.internal", "", "resolves to fd00::1, a unique-local address"},
		{"literal address", "http://172.16.0.5", "", "resolves to 172.16.0.5, a private (site-local) address"},
		{"literal IPv6 loopback", "http://[::1]:8080", "", "resolves to ::1, a loopback address"},
		{"carrier-grade NAT", "http://100.64.0.9", "", "resolves to 100.64.0.9, a carrier-grade NAT address"},
		{"IPv4-mapped private", "http://[::ffff:10.0.0.7]", "", "resolves to 10.0.0.7, a private (site-local) address"},
		{"NAT64 of a private address", "http://[64:ff9b::a00:1]", "", "the NAT64 form of 10.0.0.1, a private (site-local) address"},
		{"token endpoint", "https://public.example", "https://auth.corp/token", "resolves to 192.168.1.10, a private (site-local) address"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := []string{"QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES=true", "QUEUEBOX_DESTINATIONS_HOOK_BASEURL=" + tc.baseURL}
			path := "destinations.hook.baseUrl (QUEUEBOX_DESTINATIONS_HOOK_BASEURL)"
			if tc.tokenURL != "" {
				env = append(env, "QUEUEBOX_DESTINATIONS_HOOK_AUTH_CLIENTID=qb", "QUEUEBOX_DESTINATIONS_HOOK_AUTH_CLIENTSECRET=s",
					"QUEUEBOX_DESTINATIONS_HOOK_AUTH_TOKENURL="+tc.tokenURL)
				path = "destinations.hook.auth.tokenUrl (QUEUEBOX_DESTINATIONS_HOOK_AUTH_TOKENURL)"
			}
			opts := testOptions(baseYAML+httpDest, env...)
			opts.LookupHost = dns.lookup
			requireProblems(t, loadError(t, opts), path+": host", tc.want+", and http.blockPrivateAddresses (QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES) is true")
		})
	}
	t.Run("public and unresolvable hosts pass", func(t *testing.T) {
		t.Parallel()
		for _, host := range []string{"https://public.example", "https://does-not-resolve.example"} {
			opts := testOptions(baseYAML+httpDest, "QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES=true", "QUEUEBOX_DESTINATIONS_HOOK_BASEURL="+host)
			opts.LookupHost = dns.lookup
			mustLoad(t, opts)
		}
	})
	t.Run("each lookup has a short deadline", func(t *testing.T) {
		t.Parallel()
		opts := testOptions(baseYAML+httpDest, "QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES=true")
		var deadlineSet bool
		opts.LookupHost = func(ctx context.Context, host string) ([]net.IP, error) {
			deadline, ok := ctx.Deadline()
			deadlineSet = ok && time.Until(deadline) <= lookupTimeout
			return dns.lookup(ctx, host)
		}
		mustLoad(t, opts)
		require.True(t, deadlineSet)
	})
	t.Run("off by default", func(t *testing.T) {
		t.Parallel()
		opts := testOptions(baseYAML+httpDest, "QUEUEBOX_DESTINATIONS_HOOK_BASEURL=http://localhost:8080")
		opts.LookupHost = func(_ context.Context, host string) ([]net.IP, error) {
			return nil, errors.New("the check must not resolve when it is off")
		}
		mustLoad(t, opts)
	})
}

func TestBrokerDestinationRules(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "rabbitmq exchangeType", extra: rabbitDest, env: []string{"QUEUEBOX_DESTINATIONS_BUS_EXCHANGETYPE=headers"},
			want: []string{`destinations.bus.exchangeType (QUEUEBOX_DESTINATIONS_BUS_EXCHANGETYPE): must be one of topic, direct, fanout (in this letter case), got "headers"`}},
		{name: "rabbitmq deliveryMode", extra: rabbitDest, env: []string{"QUEUEBOX_DESTINATIONS_BUS_DELIVERYMODE=durable"},
			want: []string{`destinations.bus.deliveryMode (QUEUEBOX_DESTINATIONS_BUS_DELIVERYMODE): must be one of persistent, transient`}},
		{name: "rabbitmq exchangeFrom camel case", extra: rabbitDest, env: []string{"QUEUEBOX_DESTINATIONS_BUS_EXCHANGEFROM=aggregateType"},
			want: []string{`destinations.bus.exchangeFrom (QUEUEBOX_DESTINATIONS_BUS_EXCHANGEFROM): must be one of aggregate_type, topic, key (in this letter case), got "aggregateType"`}},
		{name: "rabbitmq exchange placeholder", extra: rabbitDest, env: []string{"QUEUEBOX_DESTINATIONS_BUS_EXCHANGE=events.{{ region }}"},
			want: []string{"destinations.bus.exchange (QUEUEBOX_DESTINATIONS_BUS_EXCHANGE): the placeholder {{ region }} of destination bus is not an address placeholder"}},
		{name: "rabbitmq exchange unclosed", extra: rabbitDest, env: []string{"QUEUEBOX_DESTINATIONS_BUS_EXCHANGE=events.{{ topic"},
			want: []string{"destinations.bus.exchange (QUEUEBOX_DESTINATIONS_BUS_EXCHANGE): a {{ in the template of destination bus has no closing }}"}},
		{name: "kafka topic placeholder", extra: kafkaDest, env: []string{"QUEUEBOX_DESTINATIONS_LOG_TOPIC=public.{{ aggregate_type }}.v1"},
			want: []string{"destinations.log.topic (QUEUEBOX_DESTINATIONS_LOG_TOPIC): the placeholder {{ aggregate_type }} of destination log"}},
		{name: "kafka topicFrom", extra: kafkaDest, env: []string{"QUEUEBOX_DESTINATIONS_LOG_TOPICFROM=payload"},
			want: []string{"destinations.log.topicFrom (QUEUEBOX_DESTINATIONS_LOG_TOPICFROM): must be one of aggregate_type, topic, key"}},
		{name: "kafka timeoutMs below 2000", extra: kafkaDest, env: []string{"QUEUEBOX_DESTINATIONS_LOG_TIMEOUTMS=1999"},
			want: []string{"destinations.log.timeoutMs (QUEUEBOX_DESTINATIONS_LOG_TIMEOUTMS): must be at least 2000, got 1999"}},
		{name: "kafka securityProtocol", extra: kafkaDest, env: []string{"QUEUEBOX_DESTINATIONS_LOG_SECURITYPROTOCOL=TLS"},
			want: []string{"destinations.log.securityProtocol (QUEUEBOX_DESTINATIONS_LOG_SECURITYPROTOCOL): must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"}},
		{name: "kafka SASL without credentials", extra: kafkaDest, env: []string{"QUEUEBOX_DESTINATIONS_LOG_SECURITYPROTOCOL=SASL_SSL"},
			want: []string{
				"destinations.log.saslMechanism (QUEUEBOX_DESTINATIONS_LOG_SASLMECHANISM): required by destinations.log.securityProtocol (QUEUEBOX_DESTINATIONS_LOG_SECURITYPROTOCOL) SASL_SSL",
				"destinations.log.saslUsername (QUEUEBOX_DESTINATIONS_LOG_SASLUSERNAME): required by",
				"destinations.log.saslPassword (QUEUEBOX_DESTINATIONS_LOG_SASLPASSWORD): required by",
			}},
		{name: "nats subject placeholder", extra: natsDest, env: []string{"QUEUEBOX_DESTINATIONS_SUBJ_SUBJECT=orders.{{ payload. }}"},
			want: []string{"destinations.subj.subject (QUEUEBOX_DESTINATIONS_SUBJ_SUBJECT): the placeholder {{ payload. }} of destination subj"}},
		{name: "nats subjectFrom", extra: natsDest, env: []string{"QUEUEBOX_DESTINATIONS_SUBJ_SUBJECTFROM=id"},
			want: []string{"destinations.subj.subjectFrom (QUEUEBOX_DESTINATIONS_SUBJ_SUBJECTFROM): must be one of aggregate_type, topic, key"}},
		{name: "nats timeoutMs zero", extra: natsDest, env: []string{"QUEUEBOX_DESTINATIONS_SUBJ_TIMEOUTMS=0"},
			want: []string{"destinations.subj.timeoutMs (QUEUEBOX_DESTINATIONS_SUBJ_TIMEOUTMS): must be above 0"}},
		{name: "nats username without password", extra: natsDest, env: []string{"QUEUEBOX_DESTINATIONS_SUBJ_USERNAME=u"},
			want: []string{"destinations.subj.password (QUEUEBOX_DESTINATIONS_SUBJ_PASSWORD): required because destinations.subj.username (QUEUEBOX_DESTINATIONS_SUBJ_USERNAME) is set"}},
		{name: "nats password without username", extra: natsDest, env: []string{"QUEUEBOX_DESTINATIONS_SUBJ_PASSWORD=p"},
			want: []string{"destinations.subj.username (QUEUEBOX_DESTINATIONS_SUBJ_USERNAME): required because destinations.subj.password (QUEUEBOX_DESTINATIONS_SUBJ_PASSWORD) is set"}},
		{name: "nats token and username", extra: natsDest, env: []string{"QUEUEBOX_DESTINATIONS_SUBJ_USERNAME=u", "QUEUEBOX_DESTINATIONS_SUBJ_PASSWORD=p", "QUEUEBOX_DESTINATIONS_SUBJ_TOKEN=t"},
			want: []string{"destinations.subj.token (QUEUEBOX_DESTINATIONS_SUBJ_TOKEN): must not be set together with destinations.subj.username (QUEUEBOX_DESTINATIONS_SUBJ_USERNAME)"}},
		{name: "destination transform", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_TRANSFORM_ONERROR=Skip"},
			want: []string{"destinations.hook.transform.expression (QUEUEBOX_DESTINATIONS_HOOK_TRANSFORM_EXPRESSION): required"}},
	})
}

func TestBrokerDestinationAccepts(t *testing.T) {
	t.Parallel()
	file := baseYAML + `destinations:
  bus:
    type: rabbitmq
    url: amqp://guest:guest@rabbit:5672
    exchange: "events.{{aggregateType}}.{{ payload.region }}.{{ data.customer.tier }}"
    exchangeFrom: aggregate_type
    routingKeyTemplate: "{{ anything.goes }}"
  log:
    type: kafka
    bootstrapServers: kafka:9092
    topic: "{{ topic }}.{{ key }}"
    timeoutMs: 2000
    securityProtocol: SASL_SSL
    saslMechanism: SCRAM-SHA-512
    saslUsername: qb
    saslPassword: kafka-pw
  subj:
    type: nats
    servers: nats://nats:4222
    subject: orders
    token: nats-token
routes:
  - topicPattern: "order.*"
    destination: bus
    routingKeyTemplate: "{{ region }}"
`
	cfg := mustLoad(t, testOptions(file))
	require.Equal(t, KindRabbitMQ, cfg.Destinations["bus"].Kind)
	require.Equal(t, "topic", cfg.Destinations["bus"].ExchangeType)
	require.Equal(t, "persistent", cfg.Destinations["bus"].DeliveryMode)
	require.Equal(t, KindKafka, cfg.Destinations["log"].Kind)
	require.Equal(t, "{{ key }}", cfg.Destinations["log"].KeyTemplate)
	require.Equal(t, KindNATS, cfg.Destinations["subj"].Kind)
	require.True(t, cfg.Destinations["subj"].JetStream)
}

func TestRouteRules(t *testing.T) {
	t.Parallel()
	route := func(body string) string { return httpDest + "routes:\n  - " + body }
	runRefusals(t, []refusal{
		{name: "topicPattern missing", extra: route("destination: hook\n"),
			want: []string{"routes[0].topicPattern (QUEUEBOX_ROUTES_0_TOPICPATTERN): required"}},
		{name: "three stars", extra: route("topicPattern: \"order.***\"\n    destination: hook\n"),
			want: []string{`routes[0].topicPattern (QUEUEBOX_ROUTES_0_TOPICPATTERN): must not hold ***`}},
		{name: "destination missing", extra: route("topicPattern: \"**\"\n"),
			want: []string{"routes[0].destination (QUEUEBOX_ROUTES_0_DESTINATION): required"}},
		{name: "unknown destination", extra: route("topicPattern: \"**\"\n    destination: hooks\n"),
			want: []string{`routes[0].destination (QUEUEBOX_ROUTES_0_DESTINATION): names "hooks", which is not a configured destination (configured: hook)`}},
		{name: "second route", extra: route("topicPattern: \"**\"\n    destination: hook\n  - topicPattern: a\n    destination: nowhere\n"),
			want: []string{`routes[1].destination (QUEUEBOX_ROUTES_1_DESTINATION): names "nowhere"`}},
	})
}

func TestTransformRules(t *testing.T) {
	t.Parallel()
	// Variables would replace the whole route list, so the cases write YAML.
	route := func(extra string) string {
		return httpDest + "routes:\n  - topicPattern: \"**\"\n    destination: hook\n    transform:\n      expression: $\n" + extra
	}
	const p = "routes[0].transform."
	runRefusals(t, []refusal{
		{name: "onError lower case", extra: route("      onError: fail\n"),
			want: []string{p + `onError (QUEUEBOX_ROUTES_0_TRANSFORM_ONERROR): must be one of Fail, Skip, Dead (in this letter case), got "fail"`}},
		{name: "timeoutMs zero", extra: route("      timeoutMs: 0\n"),
			want: []string{p + "timeoutMs (QUEUEBOX_ROUTES_0_TRANSFORM_TIMEOUTMS): must be above 0"}},
		{name: "maxDepth zero", extra: route("      maxDepth: 0\n"),
			want: []string{p + "maxDepth (QUEUEBOX_ROUTES_0_TRANSFORM_MAXDEPTH): must be above 0"}},
	})
	t.Run("expression must compile", func(t *testing.T) {
		t.Parallel()
		opts := testOptions(baseYAML + httpDest + "routes:\n  - topicPattern: a\n    destination: hook\n    transform:\n      expression: '{ \"a\": '\n      maxDepth: 7\n")
		var gotDepth int
		opts.CompileExpression = func(expr string, maxDepth int) error {
			gotDepth = maxDepth
			return errors.New("unexpected end of expression")
		}
		requireProblems(t, loadError(t, opts), p+"expression (QUEUEBOX_ROUTES_0_TRANSFORM_EXPRESSION): does not compile: unexpected end of expression")
		require.Equal(t, 7, gotDepth)
	})
	t.Run("defaults and strategies", func(t *testing.T) {
		t.Parallel()
		for _, strategy := range []string{"Fail", "Skip", "Dead"} {
			opts := testOptions(baseYAML + route("      onError: "+strategy+"\n"))
			opts.CompileExpression = func(string, int) error { return nil }
			cfg := mustLoad(t, opts)
			require.Equal(t, Transform{Expression: "$", TimeoutMs: 100, MaxDepth: 100, OnError: strategy}, *cfg.Routes[0].Transform)
		}
	})
}

// The start-time check of http.blockPrivateAddresses covers the hosts of
// the broker destinations too: the AMQP URI, each NATS server and each
// Kafka bootstrap server.
func TestBlockPrivateAddressesCoversBrokerDestinations(t *testing.T) {
	t.Parallel()
	dns := fakeDNS{"rabbit": {"10.0.0.5"}, "nats": {"203.0.113.7"}, "inside": {"169.254.169.254"},
		"kafka": {"203.0.113.8"}, "public.example": {"203.0.113.9"}}
	const tail = ", and http.blockPrivateAddresses (QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES) is true"
	for _, tc := range []struct {
		name, yaml, env, want string
	}{
		{"rabbitmq url", rabbitDest, "", "destinations.bus.url (QUEUEBOX_DESTINATIONS_BUS_URL): host rabbit resolves to 10.0.0.5, a private (site-local) address"},
		{"nats server among others", natsDest, "QUEUEBOX_DESTINATIONS_SUBJ_SERVERS=nats://nats:4222, nats://u:p@inside:4222",
			"destinations.subj.servers (QUEUEBOX_DESTINATIONS_SUBJ_SERVERS): host inside resolves to 169.254.169.254, a link-local address"},
		{"nats server without a scheme", natsDest, "QUEUEBOX_DESTINATIONS_SUBJ_SERVERS=127.0.0.1:4222",
			"destinations.subj.servers (QUEUEBOX_DESTINATIONS_SUBJ_SERVERS): host 127.0.0.1 resolves to 127.0.0.1, a loopback address"},
		{"kafka bootstrap server", kafkaDest, "QUEUEBOX_DESTINATIONS_LOG_BOOTSTRAPSERVERS=kafka:9092,[::1]:9093",
			"destinations.log.bootstrapServers (QUEUEBOX_DESTINATIONS_LOG_BOOTSTRAPSERVERS): host ::1 resolves to ::1, a loopback address"},
		{"kafka bootstrap server in a legacy IPv4 spelling", kafkaDest, "QUEUEBOX_DESTINATIONS_LOG_BOOTSTRAPSERVERS=kafka:9092,0x7f000001:9092",
			"destinations.log.bootstrapServers (QUEUEBOX_DESTINATIONS_LOG_BOOTSTRAPSERVERS): host 0x7f000001 resolves to 127.0.0.1, a loopback address"},
		{"nats server as a decimal number", natsDest, "QUEUEBOX_DESTINATIONS_SUBJ_SERVERS=nats://2130706433:4222",
			"destinations.subj.servers (QUEUEBOX_DESTINATIONS_SUBJ_SERVERS): host 2130706433 resolves to 127.0.0.1, a loopback address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := []string{"QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES=true"}
			if tc.env != "" {
				env = append(env, tc.env)
			}
			opts := testOptions(baseYAML+tc.yaml, env...)
			opts.LookupHost = dns.lookup
			requireProblems(t, loadError(t, opts), tc.want+tail)
		})
	}
	t.Run("public hosts pass", func(t *testing.T) {
		t.Parallel()
		opts := testOptions(baseYAML+kafkaDest, "QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES=true",
			"QUEUEBOX_DESTINATIONS_LOG_BOOTSTRAPSERVERS=kafka:9092,public.example:9092")
		opts.LookupHost = dns.lookup
		mustLoad(t, opts)
	})
}
