package relay

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/metrics"
)

// Metrics are the relay families of the metrics reference.
type Metrics struct {
	Messages         *prometheus.CounterVec // status: forwarded
	Errors           prometheus.Counter
	OldestPendingAge prometheus.Gauge
	ClaimsLost       prometheus.Counter // queuebox_claims_lost_total{component="inbox"}
}

// NewMetrics registers the relay families on reg, with the inbox series
// of queuebox_claims_lost_total at zero (see claim.LostCounter).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		// Shared with the inbox sources (ingest.NewMetrics): the family
		// must be registered with the same help text, or a process that
		// runs both roles could not register it twice.
		Messages: metrics.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queuebox_inbox_messages_total",
			Help: "The inbox messages per status.",
		}, []string{"status"})),
		Errors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "queuebox_inbox_relay_errors_total",
			Help: "Errors of the inbox relay.",
		}),
		OldestPendingAge: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "queuebox_inbox_oldest_pending_age_seconds",
			Help: "Age in seconds of the oldest pending inbox row; zero when none is pending.",
		}),
		ClaimsLost: claim.LostCounter(reg, "inbox"),
	}
	reg.MustRegister(m.Errors, m.OldestPendingAge)
	return m
}
