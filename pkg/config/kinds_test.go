package config

import (
	"testing"

	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/stretchr/testify/require"
)

func TestKindComesFromKeysNotType(t *testing.T) {
	t.Parallel()
	file := baseYAML + `destinations:
  mislabelled:
    type: rabbitmq
    baseUrl: https://api.example.com
sources:
  odd:
    type: nats
    queueName: q
    connectionUrl: amqp://rabbit:5672
`
	cfg := mustLoad(t, testOptions(file))
	require.Equal(t, KindHTTP, cfg.Destinations["mislabelled"].Kind)
	require.Equal(t, "rabbitmq", cfg.Destinations["mislabelled"].Type, "type stays as written")
	require.Equal(t, KindRabbitMQ, cfg.Sources["odd"].Kind)
	require.Equal(t, []string{
		`destinations.mislabelled.type is "rabbitmq", but the keys of the entry select the http kind, which QueueBox uses`,
		`sources.odd.type is "nats", but the keys of the entry select the rabbitmq kind, which QueueBox uses`,
	}, cfg.Warnings())
}

func TestTypeBreaksTiesAndTableOrderOtherwise(t *testing.T) {
	t.Parallel()
	both := "    baseUrl: https://api.example.com\n    bootstrapServers: kafka:9092\n    topic: orders\n"
	cfg := mustLoad(t, testOptions(baseYAML+"destinations:\n  d:\n    type: kafka\n"+both))
	require.Equal(t, KindKafka, cfg.Destinations["d"].Kind)
	cfg = mustLoad(t, testOptions(baseYAML+"destinations:\n  d:\n"+both))
	require.Equal(t, KindHTTP, cfg.Destinations["d"].Kind, "without type the first kind of the table wins")
	cfg = mustLoad(t, testOptions(baseYAML+"destinations:\n  d:\n    type: HTTP\n"+both))
	require.Equal(t, KindHTTP, cfg.Destinations["d"].Kind)

	authBoth := "    auth:\n      token: t\n      secret: s\n"
	cfg = mustLoad(t, testOptions(baseYAML+httpSource+authBoth))
	require.Equal(t, AuthBearer, cfg.Sources["hooks"].Auth.Kind)
	cfg = mustLoad(t, testOptions(baseYAML+httpSource+authBoth+"      type: hmac\n"))
	require.Equal(t, AuthHMAC, cfg.Sources["hooks"].Auth.Kind)
}

func TestIncompleteEntries(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "type names a kind", extra: "destinations:\n  d:\n    type: rabbitmq\n    url: amqp://r\n",
			want: []string{"destinations.d.exchange (QUEUEBOX_DESTINATIONS_D_EXCHANGE): required, because type names the rabbitmq kind, which needs url and exchange"}},
		{name: "type names a kind, nothing set", extra: "sources:\n  s:\n    type: nats\n",
			want: []string{
				"sources.s.servers (QUEUEBOX_SOURCES_S_SERVERS): required, because type names the nats kind",
				"sources.s.stream (QUEUEBOX_SOURCES_S_STREAM): required",
				"sources.s.durable (QUEUEBOX_SOURCES_S_DURABLE): required",
			}},
		{name: "type names no kind", extra: "destinations:\n  d:\n    type: sqs\n    url: amqp://r\n",
			want: []string{"destinations.d (QUEUEBOX_DESTINATIONS_D): cannot select the kind: the entry sets the required keys of no kind; set baseUrl (http), or url and exchange (rabbitmq), or bootstrapServers and topic (kafka), or servers and subject (nats)"}},
		{name: "empty entry", extra: "destinations:\n  d:\n",
			want: []string{"destinations.d (QUEUEBOX_DESTINATIONS_D): cannot select the kind"}},
		{name: "entry that is not a mapping", extra: "destinations:\n  d: https://x\n",
			want: []string{"destinations.d (QUEUEBOX_DESTINATIONS_D): must be a mapping of keys, got a single value"}},
		{name: "auth of a named kind", extra: httpDest + "    auth:\n      type: basic\n      username: u\n",
			want: []string{"destinations.hook.auth.password (QUEUEBOX_DESTINATIONS_HOOK_AUTH_PASSWORD): required, because type names the basic kind"}},
		{name: "admin auth of no kind", extra: "admin:\n  enabled: true\n  auth:\n    headerName: X-Key\n",
			want: []string{"admin.auth (QUEUEBOX_ADMIN_AUTH): cannot select the kind", "token (bearer), or key (api-key), or secret (hmac)"}},
	})
}

// Validate works on a Config that code built, and selects kinds itself.
func TestValidateOnCodeBuiltConfig(t *testing.T) {
	t.Parallel()
	cfg := Default()
	cfg.Database.URL = "jdbc:postgresql://db/q"
	cfg.Database.Username = "u"
	cfg.Database.Password = secret.New("")
	dest := newDestination()
	dest.BaseURL = "https://api.example.com"
	cfg.Destinations = map[string]*Destination{"api": dest}
	cfg.Routes = []Route{{TopicPattern: "**", Destination: "api"}}
	src := newSource()
	src.QueueName, src.ConnectionURL = "q", "amqp://r"
	cfg.Sources = map[string]*Source{"q": src, "nil": nil}

	err := cfg.Validate(Options{})
	requireProblems(t, err, "sources.nil (QUEUEBOX_SOURCES_NIL): is empty")
	require.Equal(t, KindHTTP, dest.Kind)
	require.Equal(t, "api", dest.Name)
	require.Equal(t, "{{ source }}", src.Topic)

	delete(cfg.Sources, "nil")
	require.NoError(t, cfg.Validate(Options{}))
	require.NoError(t, cfg.Validate(Options{}), "Validate is idempotent")

	unset := Default()
	unset.Database.URL, unset.Database.Username = "jdbc:postgresql://db/q", "u"
	require.NoError(t, unset.Validate(Options{}), "no password is an empty one")
}
