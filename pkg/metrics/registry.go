package metrics

import (
	"net/http"
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
	reg.MustRegister(info, uptime)
	return reg
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
