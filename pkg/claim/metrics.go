package claim

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/metrics"
)

// LostCounter returns the series of queuebox_claims_lost_total for
// component (outbox or inbox): the terminal writes and renewals that found
// another owner. The family is registered on reg at the first call for
// that registry and shared by later ones, so components of one process
// count into one family. The series starts at zero, so an increase()
// alert sees the first loss.
//
// It panics, as MustRegister does, when reg holds a different collector
// of that name. The counter is safe for concurrent use.
func LostCounter(reg prometheus.Registerer, component string) prometheus.Counter {
	vec := metrics.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "queuebox_claims_lost_total",
		Help: "Terminal writes that lost the claim: another worker owned the row.",
	}, []string{"component"}))
	return vec.WithLabelValues(component)
}
