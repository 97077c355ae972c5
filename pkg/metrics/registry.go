package metrics

import (
	"net/http"
	"runtime/metrics"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// ContentType is the documented content type of GET /metrics.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// NewRegistry returns a registry that carries the build gauge (registered
// as queuebox_info and exposed as queuebox, the name the documentation
// uses) and the uptime gauge. It registers no Go runtime or process
// collectors: the documented scrape has no such families.
func NewRegistry(version string, started time.Time) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	info := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "queuebox",
		Help: "The build information of QueueBox (queuebox_info). The value is always 1.",
	}, []string{"version"})
	info.WithLabelValues(version).Set(1)
	uptime := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "queuebox_uptime_seconds",
		Help: "The seconds since the process started.",
	}, func() float64 { return time.Since(started).Seconds() })
	reg.MustRegister(info, uptime, newMemoryGauge())
	return reg
}

// memorySample is the runtime/metrics name of every byte that the Go
// runtime has mapped from the operating system: heap, stacks, and the
// runtime's own structures. Reading it stops nothing.
const memorySample = "/memory/classes/total:bytes"

// newMemoryGauge is queuebox_process_memory_bytes, an addition to the
// documented metrics (docs/security.md): the spec's scrape carries no
// Go runtime or process families, and a process under a flood of requests
// must still show its memory.
func newMemoryGauge() prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "queuebox_process_memory_bytes",
		Help: "The bytes of memory that the Go runtime holds from the operating system.",
	}, func() float64 {
		s := []metrics.Sample{{Name: memorySample}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return float64(s[0].Value.Uint64())
	})
}

// NewConnectionsGauge registers queuebox_http_connections_open, an
// addition to the documented metrics (docs/security.md): the open
// connections of each HTTP server, labelled server = data or management.
func NewConnectionsGauge(reg prometheus.Registerer) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "queuebox_http_connections_open",
		Help: "The open connections of an HTTP server of QueueBox.",
	}, []string{"server"})
	reg.MustRegister(g)
	return g
}

// Handler serves the registry in the Prometheus text format 0.0.4 whatever
// the Accept header asks, so every scraper sees the documented names.
func Handler(g prometheus.Gatherer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		families, err := g.Gather()
		if err != nil && len(families) == 0 {
			http.Error(w, "metrics unavailable", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", ContentType)
		enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
		for _, mf := range families {
			if err := enc.Encode(mf); err != nil {
				return
			}
		}
	})
}
