package httpdest

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/metrics"
)

// ResponsesMetric is the name of the response counter.
const ResponsesMetric = "queuebox_http_publish_responses_total"

// StatusClassOther labels a request that got no response at all: a
// connection error, a timeout or a cancellation.
const StatusClassOther = "other"

// NewResponsesCounter returns the counter of HTTP destination responses,
// labelled by status_class (1xx, 2xx, 3xx, 4xx, 5xx or other). It registers
// the counter on reg unless reg is nil; when reg already holds it, the
// registered counter is returned, so every publisher can share one. Label
// values appear on first use, as the metrics reference documents.
func NewResponsesCounter(reg prometheus.Registerer) *prometheus.CounterVec {
	return metrics.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: ResponsesMetric,
		Help: "Responses of HTTP destinations to publish requests, by status class; other means no response arrived.",
	}, []string{"status_class"}))
}

// statusClass maps a status code to its label value. The raw code is never
// a label, which keeps the label set bounded.
func statusClass(code int) string {
	switch {
	case code >= 100 && code < 200:
		return "1xx"
	case code >= 200 && code < 300:
		return "2xx"
	case code >= 300 && code < 400:
		return "3xx"
	case code >= 400 && code < 500:
		return "4xx"
	case code >= 500 && code < 600:
		return "5xx"
	}
	return StatusClassOther
}

// count adds one response of class to the counter, if there is one.
func (p *Publisher) count(class string) {
	if p.opts.Responses != nil {
		p.opts.Responses.WithLabelValues(class).Inc()
	}
}
