package capture

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are capture's own metrics. They go beyond spec/29_Metrics.md
// and follow its pattern, queuebox_<area>_<what>_<unit>:
//
//	queuebox_capture_slot_lag_bytes            gauge: current WAL position minus the slot's confirmed position
//	queuebox_capture_last_event_age_seconds    gauge: seconds since the last captured outbox insert committed
//	                                           (since the start while none was seen)
//	queuebox_capture_events_total              counter: committed transactions that inserted outbox rows
//	queuebox_capture_wakeups_total             counter: wake-up notifications sent to the deliver replicas
type Metrics struct {
	SlotLag prometheus.Gauge
	Events  prometheus.Counter
	Wakeups prometheus.Counter
	// lastEvent is the commit time of the last event, in Unix nanoseconds.
	lastEvent atomic.Int64
}

// NewMetrics registers the capture metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		SlotLag: prometheus.NewGauge(prometheus.GaugeOpts{Name: "queuebox_capture_slot_lag_bytes",
			Help: "Bytes of WAL between the current WAL position and the replication slot's confirmed position."}),
		Events: prometheus.NewCounter(prometheus.CounterOpts{Name: "queuebox_capture_events_total",
			Help: "Committed transactions that inserted outbox rows, as capture read them."}),
		Wakeups: prometheus.NewCounter(prometheus.CounterOpts{Name: "queuebox_capture_wakeups_total",
			Help: "Wake-up notifications sent to the deliver replicas."}),
	}
	m.lastEvent.Store(time.Now().UnixNano())
	age := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "queuebox_capture_last_event_age_seconds",
		Help: "Seconds since the last captured outbox insert committed, or since the start when none was seen."},
		func() float64 { return time.Since(time.Unix(0, m.lastEvent.Load())).Seconds() })
	if reg != nil {
		reg.MustRegister(m.SlotLag, m.Events, m.Wakeups, age)
	}
	return m
}

// Event counts one captured event that committed at commit and moves the
// last-event age to it. It is safe for concurrent use.
func (m *Metrics) Event(commit time.Time) {
	m.Events.Inc()
	m.lastEvent.Store(commit.UnixNano())
}
