package ingestrole

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/source/webhook"
)

func TestHTTPSourcesSkipBrokerSourcesAndKeepTheConfig(t *testing.T) {
	t.Parallel()
	unnamed := &config.Source{Kind: config.KindHTTP, Path: "/a", IdempotencyKeyPath: "$.id"}
	cfg := &config.Config{Sources: map[string]*config.Source{
		"b-http": unnamed,
		"a-amqp": {Name: "a-amqp", Kind: config.KindRabbitMQ, QueueName: "q", IdempotencyKeyPath: "$.id"},
		"c-http": {Name: "c-http", Kind: config.KindHTTP, Path: "/c", IdempotencyKeyPath: "$.id"},
		"d-none": nil,
	}}
	got := httpSources(cfg)
	require.Len(t, got, 2)
	require.Equal(t, "b-http", got[0].Receive.Name, "a source is named by its key")
	require.Equal(t, "/a", got[0].Path)
	require.Equal(t, "c-http", got[1].Receive.Name)
	require.Empty(t, unnamed.Name, "the mapping does not write into the configuration")
}

func TestHTTPSourceMapsEveryKey(t *testing.T) {
	t.Parallel()
	src := &config.Source{
		Name: "orders", Kind: config.KindHTTP, Path: "/orders", IdempotencyKeyPath: "$.id",
		Consumption: config.ConsumptionPull, RateLimit: &config.RateLimit{RequestsPerMinute: 60},
		Auth: &config.SourceAuth{Kind: config.AuthBearer, Token: secret.New("tok")},
	}
	require.Equal(t, webhook.Source{
		Receive:           ingest.Source{Name: "orders", IdempotencyKeyPath: "$.id", Consumption: ingest.ConsumptionPull},
		Path:              "/orders",
		RequestsPerMinute: 60,
		Auth:              &auth.Options{Kind: auth.KindBearer, Token: secret.New("tok")},
		PathSetting:       "sources.orders.path (QUEUEBOX_SOURCES_ORDERS_PATH)",
	}, httpSource(src))

	src.RateLimit, src.Auth = nil, nil
	got := httpSource(src)
	require.Zero(t, got.RequestsPerMinute)
	require.Nil(t, got.Auth)
}

// A path that the router would read as a pattern fails the start, naming
// the key of the path and its variable.
func TestHTTPSourcePathErrorNamesTheVariable(t *testing.T) {
	t.Parallel()
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	src := httpSource(&config.Source{Name: "s", Kind: config.KindHTTP, Path: "/orders/:id", IdempotencyKeyPath: "$.id"})
	_, err = webhook.NewHandler(src, httpInbox(config.Default().Inbox), ingest.Options{Store: &ingesttest.Inbox{}, Metrics: m})
	require.EqualError(t, err, `sources.s.path (QUEUEBOX_SOURCES_S_PATH): "/orders/:id" holds ':' or '*', which an inbox path cannot use`)
}
