package health_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/health"
)

func up(context.Context) error { return nil }

func down(msg string) health.Check {
	return func(context.Context) error { return errors.New(msg) }
}

type comp struct {
	name     string
	check    health.Check
	advisory bool
}

func registry(comps ...comp) *health.Registry {
	r := health.New()
	for _, c := range comps {
		if c.advisory {
			r.AddAdvisory(c.name, c.check)
		} else {
			r.Add(c.name, c.check)
		}
	}
	return r
}

// serve answers one GET with h and decodes the JSON body.
func serve(t *testing.T, h http.Handler) (int, http.Header, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health/ready", nil))
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), "body %q", rec.Body.String())
	return rec.Code, rec.Header(), body
}

func TestReadyAggregatesTheComponents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		comps    []comp
		healthy  bool
		code     int
		wantBody map[string]any
	}{
		{
			name:    "every component up",
			comps:   []comp{{"database", up, false}, {"outbox-poller", up, false}, {"rabbitmq.orders-queue", up, false}},
			healthy: true, code: http.StatusOK,
			wantBody: map[string]any{"status": "healthy", "components": map[string]any{
				"database":              map[string]any{"status": "up"},
				"outbox-poller":         map[string]any{"status": "up"},
				"rabbitmq.orders-queue": map[string]any{"status": "up"},
			}},
		},
		{
			name:    "a deciding component down",
			comps:   []comp{{"database", down("connection refused"), false}, {"outbox-poller", up, false}},
			healthy: false, code: http.StatusServiceUnavailable,
			wantBody: map[string]any{"status": "unhealthy", "components": map[string]any{
				"database":      map[string]any{"status": "down", "error": "connection refused"},
				"outbox-poller": map[string]any{"status": "up"},
			}},
		},
		{
			name:    "an advisory component down stays healthy",
			comps:   []comp{{"database", up, false}, {"outbox-capture", down("slot missing"), true}},
			healthy: true, code: http.StatusOK,
			wantBody: map[string]any{"status": "healthy", "components": map[string]any{
				"database":       map[string]any{"status": "up"},
				"outbox-capture": map[string]any{"status": "down", "error": "slot missing"},
			}},
		},
		{
			name: "advisory up, deciding down",
			comps: []comp{
				{"database", up, false}, {"outbox-capture", up, true}, {"retention-service", down("the last cleanup of outbox failed"), false},
			},
			healthy: false, code: http.StatusServiceUnavailable,
			wantBody: map[string]any{"status": "unhealthy", "components": map[string]any{
				"database":          map[string]any{"status": "up"},
				"outbox-capture":    map[string]any{"status": "up"},
				"retention-service": map[string]any{"status": "down", "error": "the last cleanup of outbox failed"},
			}},
		},
		{
			name:    "no component",
			healthy: true, code: http.StatusOK,
			wantBody: map[string]any{"status": "healthy", "components": map[string]any{}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := registry(tc.comps...)

			report, ok := r.Ready(context.Background())
			require.Equal(t, tc.healthy, ok)
			require.Equal(t, tc.wantBody["status"], report.Status)
			require.Len(t, report.Components, len(tc.comps))

			code, header, body := serve(t, r.ReadyHandler())
			require.Equal(t, tc.code, code)
			require.Equal(t, "application/json", header.Get("Content-Type"))
			require.Equal(t, tc.wantBody, body)
		})
	}
}

// A check that does not answer within the bound counts as down, and the
// report still arrives: whether the check honours its ctx or not.
func TestReadyBoundsASlowCheck(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	for _, tc := range []struct {
		name  string
		check health.Check
		err   string // "" when either the check's or the bound's error will do
	}{
		{"honours ctx", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, ""},
		{"ignores ctx", func(context.Context) error { <-stuck; return nil }, "check did not answer within 30ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := registry(comp{"database", tc.check, false}, comp{"outbox-poller", up, false})
			health.SetCheckTimeout(r, 30*time.Millisecond)

			got := make(chan health.Report, 1)
			go func() {
				report, _ := r.Ready(context.Background())
				got <- report
			}()
			var report health.Report
			select {
			case report = <-got:
			case <-time.After(20 * time.Second):
				t.Fatal("Ready did not answer")
			}
			require.Equal(t, "unhealthy", report.Status)
			require.Equal(t, "down", report.Components["database"].Status)
			require.NotEmpty(t, report.Components["database"].Error)
			if tc.err != "" {
				require.Equal(t, tc.err, report.Components["database"].Error)
			}
			require.Equal(t, health.Status{Status: "up"}, report.Components["outbox-poller"])
		})
	}
}

func TestCheckTimeoutIsThreeSeconds(t *testing.T) {
	t.Parallel()
	// The HTTP API page documents a 3 second bound per check.
	require.Equal(t, 3*time.Second, health.CheckTimeout)
	require.Equal(t, health.CheckTimeout, health.CheckTimeoutOf(health.New()))

	var deadline time.Time
	var hasDeadline bool
	r := registry(comp{"database", func(ctx context.Context) error {
		deadline, hasDeadline = ctx.Deadline()
		return nil
	}, false})
	before := time.Now()
	_, ok := r.Ready(context.Background())
	require.True(t, ok)
	require.True(t, hasDeadline, "a check runs without a deadline")
	require.False(t, deadline.After(time.Now().Add(health.CheckTimeout)), "the check deadline is beyond the bound")
	require.True(t, deadline.After(before), "the check deadline has passed already")
}

// The checks run at once: each of these two waits for the other to start.
func TestReadyRunsChecksConcurrently(t *testing.T) {
	t.Parallel()
	a, b := make(chan struct{}), make(chan struct{})
	meet := func(mine, other chan struct{}) health.Check {
		return func(ctx context.Context) error {
			close(mine)
			select {
			case <-other:
				return nil
			case <-ctx.Done():
				return errors.New("the other check never started")
			}
		}
	}
	r := registry(comp{"a", meet(a, b), false}, comp{"b", meet(b, a), false})
	report, ok := r.Ready(context.Background())
	require.True(t, ok, "%+v", report)
}

func TestLiveHandler(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	health.LiveHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health/live", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	require.Equal(t, `{"status":"healthy","components":{"process":{"status":"up"}}}`, rec.Body.String())
}

func TestNamesAreSorted(t *testing.T) {
	t.Parallel()
	r := registry(comp{"outbox-poller", up, false}, comp{"database", up, false}, comp{"outbox-capture", up, true})
	require.Equal(t, []string{"database", "outbox-capture", "outbox-poller"}, r.Names())
}

// Components are added while probes run; the race detector checks the
// locking and every report is complete for the components it saw.
func TestRegistryIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	r := health.New()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 25 {
				r.Add(fmt.Sprintf("c%d-%d", i, j), up)
			}
		})
		wg.Go(func() {
			for range 25 {
				report, ok := r.Ready(context.Background())
				if !ok || report.Status != "healthy" {
					t.Errorf("unhealthy report: %+v", report)
					return
				}
			}
		})
	}
	wg.Wait()
	require.Len(t, r.Names(), 100)
	report, ok := r.Ready(context.Background())
	require.True(t, ok)
	require.Len(t, report.Components, 100)
}

// Two roles of one process that add the same component name show one
// component, down while either check is down, with both reasons.
func TestAddJoinsAComponentOfTheSameName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		first   health.Check
		second  health.Check
		healthy bool
		errs    []string
	}{
		{"both up", up, up, true, nil},
		{"first down", down("outbox cleanup failed"), up, false, []string{"outbox cleanup failed"}},
		{"second down", up, down("inbox cleanup failed"), false, []string{"inbox cleanup failed"}},
		{"both down", down("outbox cleanup failed"), down("inbox cleanup failed"), false,
			[]string{"outbox cleanup failed", "inbox cleanup failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := registry(comp{name: "database", check: up},
				comp{name: "retention-service", check: tc.first}, comp{name: "retention-service", check: tc.second})
			require.Equal(t, []string{"database", "retention-service"}, r.Names())
			report, healthy := r.Ready(context.Background())
			require.Equal(t, tc.healthy, healthy)
			require.Len(t, report.Components, 2)
			for _, e := range tc.errs {
				require.Contains(t, report.Components["retention-service"].Error, e)
			}
		})
	}
}

func TestDegradedComponentKeepsReadiness(t *testing.T) {
	t.Parallel()
	r := registry(comp{name: "database", check: up},
		comp{name: "destination.orders", check: func(context.Context) error {
			return fmt.Errorf("wrapped: %w", health.Degraded("circuit breaker open"))
		}})
	report, ok := r.Ready(context.Background())
	require.True(t, ok)
	require.Equal(t, "healthy", report.Status)
	require.Equal(t, health.Status{Status: "degraded", Error: "circuit breaker open"}, report.Components["destination.orders"])
}
