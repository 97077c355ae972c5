package ingestrole

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/health"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

func testApp(t *testing.T, sources map[string]*config.Source) (*run.App, *bytes.Buffer) {
	t.Helper()
	s := pgtest.NewSchema(t)
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	db, err := postgres.Open(context.Background(), postgres.Options{
		ConnString: s.URL, DisplayURL: s.Name, PoolSize: 4,
		AcquireTimeout: 10 * time.Second, StartupTimeout: 10 * time.Second,
		Logger: slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(context.Background(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	cfg := config.Default()
	cfg.Sources = sources
	e := echo.New()
	return &run.App{Name: "queuebox-ingest", Config: &cfg, Log: log, Registry: prometheus.NewRegistry(), Health: health.New(),
		Stores: &postgres.Stores{DB: db, Layout: schema.New(schema.Postgres, store.Names(cfg.Database))}, Data: e, Management: e}, &logs
}

func TestWireMountsHTTPSources(t *testing.T) {
	t.Parallel()
	app, logs := testApp(t, map[string]*config.Source{
		"stripe": {Name: "stripe", Kind: config.KindHTTP, Path: "/stripe", IdempotencyKeyPath: "$.id",
			EventTypePath: "$.type", Consumption: config.ConsumptionPush},
		"orders-queue": {Name: "orders-queue", Kind: config.KindRabbitMQ, QueueName: "q", IdempotencyKeyPath: "$.id",
			ConnectionURL: "amqp://guest:s3cret@127.0.0.1:5672/"},
	})
	components, err := wire(context.Background(), app)
	require.NoError(t, err)
	require.Len(t, components, 1, "one consumer per rabbitmq source")
	require.Equal(t, "rabbitmq.orders-queue", components[0].Name())
	require.Equal(t, []string{"rabbitmq.orders-queue"}, app.Health.Names())
	require.NotContains(t, logs.String(), "s3cret")

	rec := httptest.NewRecorder()
	app.Data.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/inbox/stripe",
		strings.NewReader(`{"id":"evt_1","type":"payment.completed"}`)))
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())

	families, err := app.Registry.Gather()
	require.NoError(t, err)
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
	}
	require.Contains(t, names, "queuebox_inbox_messages_total")
	require.Contains(t, names, "queuebox_inbox_rejections_total")
}

func TestWireRunsTheSourceTransform(t *testing.T) {
	t.Parallel()
	app, _ := testApp(t, map[string]*config.Source{
		"github": {Name: "github", Kind: config.KindHTTP, Path: "/github", IdempotencyKeyPath: "$.delivery",
			Consumption: config.ConsumptionPull,
			Transform: &config.Transform{Expression: `($assert($exists(repository), "no repository"); { "event": $headers."x-github-event", "repo": repository.name, "source": $source })`,
				TimeoutMs: 100, MaxDepth: 100, OnError: config.OnErrorFail}},
	})
	_, err := wire(context.Background(), app)
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/inbox/github",
		strings.NewReader(`{"delivery":"d-1","repository":{"name":"queuebox"}}`))
	req.Header.Set("X-GitHub-Event", "push")
	rec := httptest.NewRecorder()
	app.Data.ServeHTTP(rec, req)
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	var payload string
	require.NoError(t, app.Stores.(*postgres.Stores).DB.Pool.QueryRow(context.Background(), `SELECT payload::text FROM inbox`).Scan(&payload))
	require.JSONEq(t, `{"event":"push","repo":"queuebox","source":"github"}`, payload)

	req = httptest.NewRequest(http.MethodPost, "/inbox/github", strings.NewReader(`{"delivery":"d-2"}`))
	rec = httptest.NewRecorder()
	app.Data.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "the assertion fails without a repository")
	require.Contains(t, rec.Body.String(), `"error":"Transform failed: `)
}

// TestWireServesEveryBrokerSource: each rabbitmq, nats and kafka source
// becomes a component, in name order, with its health component.
func TestWireServesEveryBrokerSource(t *testing.T) {
	t.Parallel()
	app, logs := testApp(t, map[string]*config.Source{
		"orders-stream": {Name: "orders-stream", Kind: config.KindNATS, Servers: "nats://127.0.0.1:4222",
			Stream: "ORDERS", Durable: "queuebox-orders", IdempotencyKeyPath: "$.id", Consumption: config.ConsumptionPush,
			AckWaitMs: 30000, BatchSize: 100, Topic: "{{ source }}",
			AttributeHeaders: config.AttributeHeaders{IdempotencyKey: "x-idempotency-key", AggregateID: "x-aggregate-id", EventType: "x-event-type"}},
		"orders-topic": {Name: "orders-topic", Kind: config.KindKafka, BootstrapServers: "127.0.0.1:9092",
			Topics: []string{"orders"}, GroupID: "queuebox-orders", IdempotencyKeyPath: "$.id", Consumption: config.ConsumptionPush,
			Topic: "{{ source }}"},
		"orders-queue": {Name: "orders-queue", Kind: config.KindRabbitMQ, IdempotencyKeyPath: "$.id",
			QueueName: "q", ConnectionURL: "amqp://guest:guest@127.0.0.1:5672/"},
	})
	components, err := wire(context.Background(), app)
	require.NoError(t, err)
	var names []string
	for _, c := range components {
		names = append(names, c.Name())
	}
	require.Equal(t, []string{"rabbitmq.orders-queue", "nats.orders-stream", "kafka.orders-topic"}, names)
	require.ElementsMatch(t, names, app.Health.Names())
	require.NotContains(t, logs.String(), "not served")
}
