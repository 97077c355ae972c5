package webhook_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/httpbody"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/source/webhook"
)

// t0 is the fixed clock of every test.
var t0 = time.UnixMilli(1_767_000_000_000)

const maxBody = 2048

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// memStore is the in-memory inbox of the tests.
type memStore = ingesttest.Inbox

// env is one data port with the sources of cfg mounted, as run builds it.
type env struct {
	e     *echo.Echo
	store ingest.Store
	mem   *memStore
	reg   *prometheus.Registry
	clock *ingesttest.Clock
}

// source returns an HTTP source as the wiring maps a configured one.
func source(name, path string) *webhook.Source {
	return &webhook.Source{Path: path, Receive: ingest.Source{
		Name: name, Consumption: ingest.ConsumptionPush,
		IdempotencyKeyPath: "$.id", EventTypePath: "$.type", AggregateIDPath: "$.customer",
	}}
}

// inbox is the inbox block of every test.
var inbox = webhook.Inbox{BasePath: "/inbox", MaxBodyBytes: maxBody}

// newEnv mounts srcs on a fresh data port. store nil uses a memStore.
func newEnv(t *testing.T, store ingest.Store, transforms ingest.TransformFactory, srcs ...*webhook.Source) *env {
	t.Helper()
	ev := &env{reg: prometheus.NewRegistry(), clock: ingesttest.NewClock(t0), store: store}
	if store == nil {
		ev.mem = &memStore{}
		ev.store = ev.mem
	}
	sources := make([]webhook.Source, len(srcs))
	for i, s := range srcs {
		sources[i] = *s
	}
	server := run.NewServer("data", ":0", quietLog())
	server.Echo.Use(httpbody.Limit(inbox.MaxBodyBytes))
	ev.e = server.Echo
	m, err := ingest.NewMetrics(ev.reg)
	require.NoError(t, err)
	_, err = webhook.Mount(ev.e, inbox, sources, ingest.Options{
		Store: ev.store, Metrics: m, Log: quietLog(), Transforms: transforms, Now: ev.clock.Now,
	})
	require.NoError(t, err)
	return ev
}

// post sends a request through the router and returns the recorder.
func (ev *env) post(path, body string, kv ...string) *httptest.ResponseRecorder {
	return ev.send(newRequest(path, body, kv...))
}

// postChunked sends a body without Content-Length, as a chunked request
// arrives.
func (ev *env) postChunked(path, body string, kv ...string) *httptest.ResponseRecorder {
	req := newRequest(path, body, kv...)
	req.ContentLength = -1
	return ev.send(req)
}

func (ev *env) send(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	ev.e.ServeHTTP(rec, req)
	return rec
}

func newRequest(path, body string, kv ...string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Add(kv[i], kv[i+1])
	}
	return req
}

// counter reads one series of a counter family; 0 when absent.
func (ev *env) counter(t *testing.T, name, label, value string) float64 {
	t.Helper()
	return ingesttest.Counter(t, ev.reg, name, label, value)
}

// requireAnswer checks the status and the exact body (echo ends a JSON
// body with a newline).
func requireAnswer(t *testing.T, rec *httptest.ResponseRecorder, status int, body string) {
	t.Helper()
	require.Equal(t, status, rec.Code, rec.Body.String())
	require.Equal(t, body, strings.TrimSuffix(rec.Body.String(), "\n"))
}

var errDown = errors.New("connection refused")
