package flow

import "github.com/prometheus/client_golang/prometheus"

// metrics are the destination families of flow control.
type metrics struct {
	state    *prometheus.GaugeVec   // destination
	deferred *prometheus.CounterVec // destination, reason
	inFlight *prometheus.GaugeVec   // destination
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		state: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "queuebox_destination_circuit_state",
			Help: "Circuit breaker state per destination: 0 closed, 1 half-open, 2 open.",
		}, []string{"destination"}),
		deferred: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queuebox_destination_deferred_total",
			Help: "Outbox rows returned to pending without an attempt because their destination could not take them, per reason.",
		}, []string{"destination", "reason"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "queuebox_destination_in_flight",
			Help: "Publishes under way per destination.",
		}, []string{"destination"}),
	}
	reg.MustRegister(m.state, m.deferred, m.inFlight)
	return m
}

// hooks binds the families to the gate of one destination and starts its
// series at zero.
func (m *metrics) hooks(name string) Hooks {
	state, inFlight := m.state.WithLabelValues(name), m.inFlight.WithLabelValues(name)
	state.Set(float64(Closed))
	inFlight.Set(0)
	for _, r := range Reasons {
		m.deferred.WithLabelValues(name, string(r))
	}
	return Hooks{
		StateChanged: func(s State) { state.Set(float64(s)) },
		InFlight:     func(n int) { inFlight.Set(float64(n)) },
		Deferred:     func(r Reason) { m.deferred.WithLabelValues(name, string(r)).Inc() },
	}
}
