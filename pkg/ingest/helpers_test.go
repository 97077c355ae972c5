package ingest_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/httpbody"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/run"
)

// t0 is the fixed clock of every test.
var t0 = time.UnixMilli(1_767_000_000_000)

const maxBody = 2048

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// memStore is an in-memory Store that deduplicates like the unique
// constraint and can fail on demand: fail fails every insert, refuse the
// rows it returns an error for.
type memStore struct {
	mu     sync.Mutex
	rows   []queuebox.ReceivedRow
	keys   map[string]bool
	fail   error
	refuse func(queuebox.ReceivedRow) error
}

func (s *memStore) Insert(_ context.Context, row queuebox.ReceivedRow) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return "", false, s.fail
	}
	if s.refuse != nil {
		if err := s.refuse(row); err != nil {
			return "", false, err
		}
	}
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	k := row.Source + "\x00" + row.IdempotencyKey
	if s.keys[k] {
		return "", false, nil
	}
	s.keys[k] = true
	s.rows = append(s.rows, row)
	return row.ID, true, nil
}

func (s *memStore) all() []queuebox.ReceivedRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]queuebox.ReceivedRow(nil), s.rows...)
}

// clock is a settable clock for the rate limit and the HMAC check.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is one data port with the sources of cfg mounted, as run builds it.
type env struct {
	e     *echo.Echo
	store ingest.Store
	mem   *memStore
	reg   *prometheus.Registry
	clock *clock
}

// source returns an HTTP source as the loader would fill it.
func source(name, path string) *config.Source {
	return &config.Source{
		Name: name, Kind: config.KindHTTP, Type: "http", Path: path, Consumption: config.ConsumptionPush,
		IdempotencyKeyPath: "$.id", EventTypePath: "$.type", AggregateIDPath: "$.customer",
	}
}

// newEnv mounts srcs on a fresh data port. store nil uses a memStore.
func newEnv(t *testing.T, store ingest.Store, transforms ingest.TransformFactory, srcs ...*config.Source) *env {
	t.Helper()
	ev := &env{reg: prometheus.NewRegistry(), clock: &clock{now: t0}, store: store}
	if store == nil {
		ev.mem = &memStore{}
		ev.store = ev.mem
	}
	cfg := &config.Config{Inbox: config.Inbox{BasePath: "/inbox", MaxBodyBytes: maxBody}, Sources: map[string]*config.Source{}}
	for _, s := range srcs {
		cfg.Sources[s.Name] = s
	}
	server := run.NewServer("data", ":0", quietLog())
	server.Echo.Use(httpbody.Limit(cfg.Inbox.MaxBodyBytes))
	ev.e = server.Echo
	m, err := ingest.NewMetrics(ev.reg)
	require.NoError(t, err)
	_, err = ingest.Mount(ev.e, cfg, ingest.Options{
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
	families, err := ev.reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// requireAnswer checks the status and the exact body (echo ends a JSON
// body with a newline).
func requireAnswer(t *testing.T, rec *httptest.ResponseRecorder, status int, body string) {
	t.Helper()
	require.Equal(t, status, rec.Code, rec.Body.String())
	require.Equal(t, body, strings.TrimSuffix(rec.Body.String(), "\n"))
}

var errDown = errors.New("connection refused")
