package ingest

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/metrics"
)

// Values of the status label of queuebox_inbox_messages_total that a
// source writes. The relay counts "forwarded".
const (
	StatusNew       = "new"
	StatusDuplicate = "duplicate"
)

// Values of the reason label of queuebox_inbox_rejections_total.
const (
	ReasonExtractionFailed = "extraction_failed"
	ReasonTransformFailed  = "transform_failed"
	ReasonStorageFailed    = "storage_failed"
)

// Metrics are the documented inbox counters of the receiving side. They
// are safe for concurrent use and shared by every source of a process.
type Metrics struct {
	messages   *prometheus.CounterVec
	rejections *prometheus.CounterVec
	filtered   *prometheus.CounterVec
}

// NewMetrics registers the counters on reg. A counter that reg already
// holds (another component of the process registered it first) is reused,
// so the relay and the sources can share queuebox_inbox_messages_total.
//
// The status and reason series start at zero, so a scrape shows every
// documented family before the first message; the filtered series of a
// source appears after its first drop, as documented.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queuebox_inbox_messages_total",
			Help: "The inbox messages per status.",
		}, []string{"status"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queuebox_inbox_rejections_total",
			Help: "The inbox messages that QueueBox rejected, per reason.",
		}, []string{"reason"}),
		filtered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queuebox_inbox_filtered_total",
			Help: "The inbox messages that the header filter of a source dropped.",
		}, []string{"source"}),
	}
	for _, c := range []**prometheus.CounterVec{&m.messages, &m.rejections, &m.filtered} {
		var err error
		if *c, err = metrics.Register(reg, *c); err != nil {
			return nil, err
		}
	}
	for _, s := range []string{StatusNew, StatusDuplicate} {
		m.messages.WithLabelValues(s)
	}
	for _, r := range []string{ReasonExtractionFailed, ReasonTransformFailed, ReasonStorageFailed} {
		m.rejections.WithLabelValues(r)
	}
	return m, nil
}

func (m *Metrics) message(status string)  { m.messages.WithLabelValues(status).Inc() }
func (m *Metrics) rejected(reason string) { m.rejections.WithLabelValues(reason).Inc() }
func (m *Metrics) dropped(source string)  { m.filtered.WithLabelValues(source).Inc() }
