package claim

import "github.com/prometheus/client_golang/prometheus"

// NewLostCounter builds queuebox_claims_lost_total{component}: terminal
// writes and renewals that found another owner. component is outbox or
// inbox. The caller registers it.
func NewLostCounter() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "queuebox_claims_lost_total",
		Help: "Terminal writes that lost the claim: another worker owned the row.",
	}, []string{"component"})
}
