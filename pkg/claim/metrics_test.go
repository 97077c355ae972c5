package claim_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

// Two components of one process share one family; each series starts at
// zero, and a second call for the same component returns the same series.
func TestLostCounterRegistersOnceAndStartsAtZero(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	outbox := claim.LostCounter(reg, "outbox")
	inbox := claim.LostCounter(reg, "inbox")
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP queuebox_claims_lost_total Terminal writes that lost the claim: another worker owned the row.
# TYPE queuebox_claims_lost_total counter
queuebox_claims_lost_total{component="inbox"} 0
queuebox_claims_lost_total{component="outbox"} 0
`), "queuebox_claims_lost_total"))

	outbox.Inc()
	claim.LostCounter(reg, "outbox").Inc()
	inbox.Inc()
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP queuebox_claims_lost_total Terminal writes that lost the claim: another worker owned the row.
# TYPE queuebox_claims_lost_total counter
queuebox_claims_lost_total{component="inbox"} 1
queuebox_claims_lost_total{component="outbox"} 2
`), "queuebox_claims_lost_total"))
}

func TestLostCounterPanicsOnAnotherCollectorOfItsName(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "queuebox_claims_lost_total", Help: "other"}))
	require.Panics(t, func() { claim.LostCounter(reg, "outbox") })
}
