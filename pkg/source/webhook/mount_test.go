package webhook_test

import (
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
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

func TestMountKeepsTheOrderOfTheSources(t *testing.T) {
	t.Parallel()
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	e := echo.New()
	handlers, err := webhook.Mount(e, webhook.Inbox{BasePath: "/hooks", MaxBodyBytes: maxBody},
		[]webhook.Source{*source("c-http", "/c"), *source("b-http", "/a")}, ingest.Options{Store: &memStore{}, Metrics: m})
	require.NoError(t, err)
	require.Len(t, handlers, 2)
	require.Equal(t, "c-http", handlers[0].Name())
	require.Equal(t, "/hooks/c", handlers[0].Route())
	require.Equal(t, "b-http", handlers[1].Name())
	require.Equal(t, "/hooks/a", handlers[1].Route())

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
	bad.Auth = &auth.Options{Kind: auth.KindBearer}
	e := echo.New()
	_, err = webhook.Mount(e, inbox, []webhook.Source{*source("a", "/a"), *bad}, ingest.Options{Store: &memStore{}, Metrics: m})
	require.EqualError(t, err, "sources.z.auth: auth: bearer needs a token")
	require.Empty(t, e.Routes())

	_, err = webhook.NewHandler(*source("a", "/a"), inbox, ingest.Options{Metrics: m})
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
	opts := ingest.Options{Store: &memStore{}, Metrics: m}
	for _, path := range []string{"/orders/:id", "/hooks/*"} {
		_, err := webhook.NewHandler(*source("s", path), inbox, opts)
		require.EqualError(t, err, `sources.s.path: "`+path+`" holds ':' or '*', which an inbox path cannot use`)

		named := source("s", path)
		named.PathSetting = "sources.s.path (QUEUEBOX_SOURCES_S_PATH)"
		_, err = webhook.NewHandler(*named, inbox, opts)
		require.ErrorContains(t, err, "sources.s.path (QUEUEBOX_SOURCES_S_PATH): ", path)
	}
}
