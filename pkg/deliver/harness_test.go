package deliver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/httpdest"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// request is what the in-test receiver saw.
type request = brokertest.HTTPRequest

// newReceiver is an HTTP destination whose answer each test decides.
func newReceiver(t *testing.T, answer func(request) int) *brokertest.HTTPReceiver {
	t.Helper()
	return brokertest.NewHTTPReceiver(t, brokertest.StatusBy(answer))
}

func ok(request) int { return http.StatusOK }

// env is one migrated schema with the settings of the pollers a test
// builds on it: one route, order.*, to the HTTP destination webhook-api at
// baseURL unless the test changes them.
type env struct {
	s          pgtest.Schema
	db         *postgres.DB
	settings   deliver.Options // the settings only; build adds the rest
	routes     []deliver.RouteSpec
	dests      map[string]deliver.DestinationSpec
	baseURL    string // of webhook-api
	transforms *deliver.Transforms
}

func newEnv(t *testing.T, baseURL string) *env {
	t.Helper()
	s, db := pgtest.Migrated(t, 12)
	return &env{s: s, db: db, baseURL: baseURL,
		settings: deliver.Options{PollInterval: 20 * time.Millisecond, RetryBaseDelay: 10 * time.Millisecond,
			PendingGaugeInterval: 50 * time.Millisecond, ShutdownTimeout: 5 * time.Second,
			ClaimTimeout: deliver.DefaultClaimTimeout},
		routes: []deliver.RouteSpec{{TopicPattern: "order.*", Destinations: []string{"webhook-api"}}},
		dests:  map[string]deliver.DestinationSpec{"webhook-api": {Name: "webhook-api", Kind: "http"}},
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// webhook is the HTTP publisher of webhook-api.
func (e *env) webhook(t *testing.T, reg prometheus.Registerer) queuebox.Publisher {
	t.Helper()
	p, err := httpdest.New(httpdest.Options{Name: "webhook-api", BaseURL: e.baseURL, Path: "/webhook",
		Timeout: 5 * time.Second, Responses: httpdest.NewResponsesCounter(reg)})
	require.NoError(t, err)
	return p
}

// build builds a poller with e's settings, routes and transforms on a
// store of e's schema; opts brings the publishers, redactor, metrics and
// logger.
func (e *env) build(t *testing.T, opts deliver.Options) *deliver.Poller {
	t.Helper()
	store, err := postgres.NewOutbox(e.db, schema.New(schema.Postgres, schema.DefaultNames()), e.settings.ClaimTimeout)
	require.NoError(t, err)
	router, err := deliver.NewRouter(e.routes, e.dests)
	require.NoError(t, err)
	s := e.settings
	s.Store, s.Router, s.Transforms = store, router, e.transforms
	s.Publishers, s.Redactor, s.Metrics, s.Logger = opts.Publishers, opts.Redactor, opts.Metrics, opts.Logger
	s.Flow = opts.Flow
	p, err := deliver.NewPoller(s)
	require.NoError(t, err)
	return p
}

// poller builds a poller on its own registry, as one replica would.
func (e *env) poller(t *testing.T) (*deliver.Poller, *deliver.Metrics) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m := deliver.NewMetrics(reg)
	return e.build(t, deliver.Options{Publishers: map[string]queuebox.Publisher{"webhook-api": e.webhook(t, reg)},
		Redactor: redact.New(), Metrics: m, Logger: quiet()}), m
}

// start runs a poller until the test ends or stop is called.
func start(t *testing.T, p *deliver.Poller) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
		})
	}
	t.Cleanup(stop)
	return stop
}

func (e *env) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	_, err := e.s.Connect(t).Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

type row struct {
	ID, State string
	Attempt   int
	LastError *string
}

func (e *env) rows(t *testing.T, conn *pgx.Conn) []row {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT id::text, state, attempt, last_error FROM outbox ORDER BY sequence`)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	require.NoError(t, err)
	return out
}

func (e *env) waitStates(t *testing.T, want ...string) []row {
	t.Helper()
	conn := e.s.Connect(t)
	var got []row
	require.Eventually(t, func() bool {
		got = e.rows(t, conn)
		if len(got) != len(want) {
			return false
		}
		for i := range want {
			if got[i].State != want[i] {
				return false
			}
		}
		return true
	}, 30*time.Second, 10*time.Millisecond)
	return got
}

// waitCount waits until the counter c reads want. The poller counts an
// outcome after its write commits, so a test that has just seen the row's
// state may read the counter a moment before it moves.
func waitCount(t *testing.T, c prometheus.Collector, want float64, msgAndArgs ...any) {
	t.Helper()
	require.Eventually(t, func() bool { return testutil.ToFloat64(c) == want }, 30*time.Second, 5*time.Millisecond, msgAndArgs...)
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
