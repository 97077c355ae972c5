package webhook_test

import (
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/source/webhook"
)

func TestRoute(t *testing.T) {
	t.Parallel()
	tests := []struct{ base, path, want string }{
		{"/inbox", "/stripe", "/inbox/stripe"},
		{"/inbox/", "stripe", "/inbox/stripe"},
		{"/inbox", "stripe/", "/inbox/stripe"},
		{"/", "/stripe", "/stripe"},
		{"/webhooks/v1", "/a/b", "/webhooks/v1/a/b"},
		{"/inbox", " /padded ", "/inbox/padded"},
		{"/inbox", "/", "/inbox"},
		{"/", "/", "/"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, webhook.Route(tt.base, tt.path), "%q + %q", tt.base, tt.path)
	}
}

func TestMountSkipsBrokerSourcesAndKeepsTheConfig(t *testing.T) {
	t.Parallel()
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	http1 := source("", "/a") // the loader sets Name; Mount falls back to the key
	cfg := &config.Config{
		Inbox: config.Inbox{BasePath: "/hooks", MaxBodyBytes: maxBody},
		Sources: map[string]*config.Source{
			"b-http": http1,
			"a-amqp": {Kind: config.KindRabbitMQ, QueueName: "q", IdempotencyKeyPath: "$.id"},
			"c-http": source("c-http", "/c"),
		},
	}
	e := echo.New()
	handlers, err := webhook.Mount(e, cfg, ingest.Options{Store: &memStore{}, Metrics: m})
	require.NoError(t, err)
	require.Len(t, handlers, 2)
	require.Equal(t, "b-http", handlers[0].Name())
	require.Equal(t, "/hooks/a", handlers[0].Route())
	require.Equal(t, "/hooks/c", handlers[1].Route())
	require.Empty(t, http1.Name, "Mount does not write into the configuration")

	var routes []string
	for _, r := range e.Routes() {
		routes = append(routes, r.Method+" "+r.Path)
	}
	require.ElementsMatch(t, []string{"POST /hooks/a", "POST /hooks/c"}, routes)
}

func TestMountFailsWithoutRegisteringAnything(t *testing.T) {
	t.Parallel()
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	bad := source("z", "/z")
	bad.Auth = &config.SourceAuth{Kind: config.AuthBearer}
	cfg := &config.Config{Inbox: config.Inbox{BasePath: "/inbox", MaxBodyBytes: maxBody},
		Sources: map[string]*config.Source{"a": source("a", "/a"), "z": bad}}
	e := echo.New()
	_, err = webhook.Mount(e, cfg, ingest.Options{Store: &memStore{}, Metrics: m})
	require.EqualError(t, err, "sources.z.auth: auth: bearer needs a token")
	require.Empty(t, e.Routes())

	_, err = webhook.NewHandler(source("a", "/a"), cfg.Inbox, ingest.Options{Metrics: m})
	require.ErrorContains(t, err, "Options.Store")
}

func TestMetricsStartAtZero(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	families, err := ev.reg.Gather()
	require.NoError(t, err)
	names := map[string]int{}
	for _, f := range families {
		names[f.GetName()] = len(f.GetMetric())
	}
	require.Equal(t, 2, names["queuebox_inbox_messages_total"])
	require.Equal(t, 3, names["queuebox_inbox_rejections_total"])
	require.NotContains(t, names, "queuebox_inbox_filtered_total", "the filtered series appears after the first drop")

	again, err := ingest.NewMetrics(ev.reg)
	require.NoError(t, err, "a second registration reuses the counters")
	require.NotNil(t, again)
}

func TestOtherMethodsAreNotRoutes(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	req := newRequest("/inbox/s", "")
	req.Method = http.MethodGet
	require.NotEqual(t, http.StatusAccepted, ev.send(req).Code)
	require.Empty(t, ev.mem.Rows())
}

func TestRouterMetacharactersInAPathAreRefused(t *testing.T) {
	t.Parallel()
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	for _, path := range []string{"/orders/:id", "/hooks/*"} {
		_, err := webhook.NewHandler(source("s", path), config.Inbox{BasePath: "/inbox", MaxBodyBytes: maxBody},
			ingest.Options{Store: &memStore{}, Metrics: m})
		require.ErrorContains(t, err, "sources.s.path (QUEUEBOX_SOURCES_S_PATH)", path)
	}
}
