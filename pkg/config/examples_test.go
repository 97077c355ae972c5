package config

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// completeEnv gives the placeholders of testdata/complete.yml a value.
var completeEnv = []string{
	"DB_PASSWORD=complete-db-password",
	"ADMIN_TOKEN=complete-admin-token",
	"ORDERS_CLIENT_SECRET=complete-client-secret",
	"STRIPE_WEBHOOK_SECRET=complete-stripe-secret",
	"ORDERS_SIGNING_SECRET=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
	"GITHUB_WEBHOOK_SECRET=complete-github-secret",
}

func loadComplete(t *testing.T, extraEnv ...string) *Config {
	t.Helper()
	data, err := os.ReadFile("testdata/complete.yml")
	require.NoError(t, err)
	return mustLoad(t, testOptions(string(data), append(append([]string(nil), completeEnv...), extraEnv...)...))
}

// The complete example of the configuration reference loads as it is.
func TestCompleteExampleLoads(t *testing.T) {
	t.Parallel()
	cfg := loadComplete(t)
	require.Empty(t, cfg.Warnings(), "every key of the example is known and every type agrees")

	require.Equal(t, 9090, *cfg.Server.ManagementPort)
	require.Equal(t, "complete-db-password", cfg.Database.Password.Reveal())
	require.Equal(t, 10, *cfg.Inbox.Relay.MaxAttempts)
	require.Equal(t, AuthBearer, cfg.Admin.Auth.Kind)
	require.Equal(t, "complete-admin-token", cfg.Admin.Auth.Token.Reveal())

	kinds := map[string]string{}
	for name, d := range cfg.Destinations {
		require.Equal(t, name, d.Name)
		kinds[name] = d.Kind
	}
	require.Equal(t, map[string]string{"orders-api": KindHTTP, "events-exchange": KindRabbitMQ, "events-topic": KindKafka, "events-subject": KindNATS}, kinds)
	api := cfg.Destinations["orders-api"]
	require.Equal(t, AuthOAuth2, api.Auth.Kind)
	require.Equal(t, "complete-client-secret", api.Auth.ClientSecret.Reveal())
	require.Equal(t, map[string]string{"X-Team": "orders"}, api.Headers)
	require.Equal(t, OnErrorFail, api.Transform.OnError)
	require.Equal(t, SigningStandardWebhooks, api.Signing.Scheme)
	require.Equal(t, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", api.Signing.Secret.Reveal())

	require.Len(t, cfg.Routes, 2)
	require.Equal(t, "{{ payload.region }}.{{ topic }}", *cfg.Routes[1].RoutingKeyTemplate)

	kinds = map[string]string{}
	for name, s := range cfg.Sources {
		require.Equal(t, name, s.Name)
		kinds[name] = s.Kind
	}
	require.Equal(t, map[string]string{"stripe": KindHTTP, "github": KindHTTP, "orders": KindHTTP, "orders-queue": KindRabbitMQ, "orders-log": KindKafka, "orders-stream": KindNATS}, kinds)
	stripe := cfg.Sources["stripe"]
	require.Equal(t, "v1=", *stripe.Auth.SignaturePrefix)
	require.Equal(t, "Stripe-Signature", stripe.Auth.HeaderName)
	require.Equal(t, PayloadBody, stripe.Auth.SignaturePayloadFormat)
	require.Equal(t, 600, stripe.RateLimit.RequestsPerMinute)
	github := cfg.Sources["github"]
	require.Equal(t, AuthGitHub, github.Auth.Kind)
	require.Equal(t, []string{"x-github-delivery"}, github.IdempotencyKeyHeaders)
	require.Equal(t, "{{ source }}", cfg.Sources["orders-stream"].Topic)
	require.Equal(t, ConsumptionPull, cfg.Sources["orders"].Consumption)

	require.True(t, cfg.Retention.Enabled)
	require.Equal(t, "7d", cfg.Retention.Outbox.MaxAge.String())
	require.Equal(t, "6h", cfg.Retention.Inbox.CleanupInterval.String())
}

// The example compiles its transform through the injected compiler.
func TestCompleteExampleCompilesTransforms(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/complete.yml")
	require.NoError(t, err)
	opts := testOptions(string(data), completeEnv...)
	var compiled []string
	opts.CompileExpression = func(expr string, _ int) error {
		compiled = append(compiled, expr)
		return nil
	}
	mustLoad(t, opts)
	require.Equal(t, []string{`{ "data": $, "topic": $topic }`}, compiled)
}

// The variables-only example of the environment variables page loads with
// no file and no packaged configuration.
func TestEnvironmentOnlyExampleLoads(t *testing.T) {
	t.Parallel()
	opts := testOptions("",
		"QUEUEBOX_DATABASE_URL=jdbc:postgresql://db:5432/queuebox",
		"QUEUEBOX_DATABASE_USERNAME=queuebox",
		"QUEUEBOX_DATABASE_PASSWORD=secret",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_TYPE=http",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_BASEURL=https://api.example.com",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN=order.*",
		"QUEUEBOX_ROUTES_0_DESTINATION=webhook",
		"QUEUEBOX_SOURCES_STRIPE_TYPE=http",
		"QUEUEBOX_SOURCES_STRIPE_PATH=/stripe",
		"QUEUEBOX_SOURCES_STRIPE_IDEMPOTENCYKEYPATH=$.id",
		"QUEUEBOX_SOURCES_STRIPE_EVENTTYPEPATH=$.type",
	)
	cfg := mustLoad(t, opts)
	require.Equal(t, KindHTTP, cfg.Destinations["webhook"].Kind)
	require.Equal(t, "https://api.example.com", cfg.Destinations["webhook"].BaseURL)
	require.Equal(t, []Route{{TopicPattern: "order.*", Destination: "webhook"}}, cfg.Routes)
	s := cfg.Sources["stripe"]
	require.Equal(t, KindHTTP, s.Kind)
	require.Equal(t, "/stripe", s.Path)
	require.Equal(t, "{{ eventType }}", s.Topic)
	require.Equal(t, "$.type", s.EventTypePath)
}

// The three database variables are the minimum.
func TestMinimumVariables(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions("",
		"QUEUEBOX_DATABASE_URL=jdbc:postgresql://db.internal:5432/queuebox",
		"QUEUEBOX_DATABASE_USERNAME=queuebox",
		"QUEUEBOX_DATABASE_PASSWORD=secret"))
	def := Default()
	def.Database.URL, def.Database.Username = cfg.Database.URL, cfg.Database.Username
	def.Database.Password = cfg.Database.Password
	def.warnings = cfg.warnings
	require.Equal(t, def, *cfg, "every other key keeps its default")
}

// The packaged default.yml loads as a configuration of its own.
func TestPackagedDefaultLoads(t *testing.T) {
	t.Parallel()
	opts := Options{Environ: []string{}, ReadFile: fakeFiles{}.read, Packaged: PackagedDefault()}
	cfg := mustLoad(t, opts)
	require.Equal(t, "jdbc:postgresql://localhost:5432/queuebox", cfg.Database.URL)
}
