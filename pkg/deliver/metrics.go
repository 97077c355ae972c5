package deliver

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/metrics"
)

// Metrics are the outbox families of the metrics reference. Families with
// labels appear in a scrape after their first use, as documented.
type Metrics struct {
	Messages            *prometheus.CounterVec // status: sent, failed, dead
	Pending             prometheus.Gauge
	Reclaimed           prometheus.Counter
	OldestPendingAge    prometheus.Gauge
	ClaimsLost          prometheus.Counter // queuebox_claims_lost_total{component="outbox"}
	ProcessErrors       prometheus.Counter
	Processing          *metrics.Timer
	Publish             *metrics.Timer         // destination_type
	DestinationMessages *prometheus.CounterVec // destination, outcome
	QueueDepth          *prometheus.GaugeVec   // destination
	TransformFailures   *prometheus.CounterVec // strategy
}

// NewMetrics registers the outbox families on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queuebox_outbox_messages_total",
			Help: "Outbox delivery outcomes: sent, failed (a retry follows) or dead.",
		}, []string{"status"}),
		Pending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "queuebox_outbox_messages_pending",
			Help: "Outbox rows that wait for a publish.",
		}),
		Reclaimed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "queuebox_outbox_messages_reclaimed_total",
			Help: "Outbox rows returned to pending after their claim expired.",
		}),
		OldestPendingAge: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "queuebox_outbox_oldest_pending_age_seconds",
			Help: "Age of the oldest pending outbox row; zero when none is pending.",
		}),
		ClaimsLost:    claim.LostCounter(reg, "outbox"),
		ProcessErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "queuebox_outbox_process_errors_total", Help: "Errors that stopped the processing of one outbox row."}),
		DestinationMessages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queuebox_outbox_destination_messages_total",
			Help: "Outbox publishes per destination and outcome.",
		}, []string{"destination", "outcome"}),
		QueueDepth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "queuebox_outbox_queue_depth",
			Help: "Pending outbox rows per destination.",
		}, []string{"destination"}),
		TransformFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queuebox_transform_failures_total",
			Help: "Route and destination transform failures per error strategy.",
		}, []string{"strategy"}),
	}
	reg.MustRegister(m.Messages, m.Pending, m.Reclaimed, m.OldestPendingAge,
		m.ProcessErrors, m.DestinationMessages, m.QueueDepth, m.TransformFailures)
	// The label sets of fixed values start at zero, so dashboards and
	// alerts see the series before the first event.
	for _, status := range []string{"sent", "failed", "dead"} {
		m.Messages.WithLabelValues(status)
	}
	for _, strategy := range []string{StrategyFail, StrategySkip, StrategyDead} {
		m.TransformFailures.WithLabelValues(strategy)
	}
	m.Processing = metrics.NewTimer(reg, "queuebox_outbox_processing_duration_seconds", "Time to process one outbox row.")
	m.Publish = metrics.NewTimer(reg, "queuebox_outbox_publish_duration_seconds", "Time to publish one message, per destination type.", "destination_type")
	return m
}

// sentCounter returns the success series of
// queuebox_outbox_destination_messages_total for dest, looked up in the
// vector once per destination instead of once per row. The series appears
// with the destination's first successful publish, as before; failures
// are rare and take the vector's lookup.
func (p *Poller) sentCounter(dest string) prometheus.Counter {
	if c, ok := p.counters.Load(dest); ok {
		return c.(prometheus.Counter)
	}
	c, _ := p.counters.LoadOrStore(dest, p.opts.Metrics.DestinationMessages.WithLabelValues(dest, "success"))
	return c.(prometheus.Counter)
}

// markPublished records that dest got a publish, for the queue depth
// gauge. The read comes first: a store into a sync.Map allocates even
// when the key is there, and this runs once per row.
func (p *Poller) markPublished(dest string) {
	if _, ok := p.published.Load(dest); !ok {
		p.published.Store(dest, true)
	}
}
