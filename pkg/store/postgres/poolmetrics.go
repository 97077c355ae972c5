package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/metrics"
)

// poolMetrics feeds the documented hikaricp_* families from the pgx pool,
// so the alerts of the monitoring guide work unchanged. Gauges read the
// pool statistics at scrape time; the timers observe pgx trace events.
type poolMetrics struct {
	name     string
	maxConns int32
	minConns int32
	pool     *pgxpool.Pool
	pending  atomic.Int64

	total, active, idle, pendingDesc, minDesc, maxDesc *prometheus.Desc
	timeouts                                           prometheus.Counter
	acquire, creation, usage                           *metrics.Timer

	mu       sync.Mutex
	acquired map[*pgx.Conn]time.Time
}

// newPoolMetrics registers the pool families on reg (a private registry
// when reg is nil, so the hooks always have somewhere to write).
func newPoolMetrics(reg prometheus.Registerer, name string, maxConns, minConns int32) *poolMetrics {
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	if name == "" {
		name = "queuebox"
	}
	labels := prometheus.Labels{"pool": name}
	desc := func(n, help string) *prometheus.Desc { return prometheus.NewDesc(n, help, nil, labels) }
	m := &poolMetrics{
		name: name, maxConns: maxConns, minConns: minConns,
		total:       desc("hikaricp_connections", "The connections in the pool, idle and active."),
		active:      desc("hikaricp_connections_active", "The connections that a caller holds."),
		idle:        desc("hikaricp_connections_idle", "The connections that are free."),
		pendingDesc: desc("hikaricp_connections_pending", "The callers that wait for a connection."),
		minDesc:     desc("hikaricp_connections_min", "The minimum idle connection count of the pool."),
		maxDesc:     desc("hikaricp_connections_max", "The maximum size of the pool."),
		timeouts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hikaricp_connections_timeout_total", Help: "The connection requests that timed out.",
			ConstLabels: labels,
		}),
		acquired: map[*pgx.Conn]time.Time{},
	}
	wrapped := prometheus.WrapRegistererWith(labels, reg)
	m.acquire = metrics.NewTimer(wrapped, "hikaricp_connections_acquire_seconds", "The time to acquire a connection from the pool.")
	m.creation = metrics.NewTimer(wrapped, "hikaricp_connections_creation_seconds", "The time to create a physical connection.")
	m.usage = metrics.NewTimer(wrapped, "hikaricp_connections_usage_seconds", "The time a caller held a connection.")
	reg.MustRegister(m)
	return m
}

// install hooks the tracer into the pool configuration.
func (m *poolMetrics) install(cfg *pgxpool.Config) {
	cfg.ConnConfig.Tracer = &poolTracer{m: m}
	cfg.AfterRelease = func(conn *pgx.Conn) bool {
		m.mu.Lock()
		start, ok := m.acquired[conn]
		delete(m.acquired, conn)
		m.mu.Unlock()
		if ok {
			m.usage.Since(start)
		}
		return true
	}
}

// Describe implements prometheus.Collector.
func (m *poolMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.total, m.active, m.idle, m.pendingDesc, m.minDesc, m.maxDesc} {
		ch <- d
	}
	m.timeouts.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *poolMetrics) Collect(ch chan<- prometheus.Metric) {
	var total, active, idle float64
	if m.pool != nil {
		st := m.pool.Stat()
		total, active, idle = float64(st.TotalConns()), float64(st.AcquiredConns()), float64(st.IdleConns())
	}
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	gauge(m.total, total)
	gauge(m.active, active)
	gauge(m.idle, idle)
	gauge(m.pendingDesc, float64(m.pending.Load()))
	gauge(m.minDesc, float64(m.minConns))
	gauge(m.maxDesc, float64(m.maxConns))
	m.timeouts.Collect(ch)
}

// poolTracer observes acquisitions and physical connects.
type poolTracer struct{ m *poolMetrics }

type traceStartKey struct{}

func (t *poolTracer) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	t.m.pending.Add(1)
	return context.WithValue(ctx, traceStartKey{}, time.Now())
}

func (t *poolTracer) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, data pgxpool.TraceAcquireEndData) {
	t.m.pending.Add(-1)
	if start, ok := ctx.Value(traceStartKey{}).(time.Time); ok {
		t.m.acquire.Since(start)
	}
	if data.Err == nil && data.Conn != nil {
		t.m.mu.Lock()
		t.m.acquired[data.Conn] = time.Now()
		t.m.mu.Unlock()
	}
}

func (t *poolTracer) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	return context.WithValue(ctx, traceStartKey{}, time.Now())
}

func (t *poolTracer) TraceConnectEnd(ctx context.Context, data pgx.TraceConnectEndData) {
	if start, ok := ctx.Value(traceStartKey{}).(time.Time); ok && data.Err == nil {
		t.m.creation.Since(start)
	}
}

// TraceQueryStart is required by pgx.QueryTracer; queries are not timed.
func (t *poolTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

// TraceQueryEnd is required by pgx.QueryTracer.
func (t *poolTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
