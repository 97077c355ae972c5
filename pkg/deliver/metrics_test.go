package deliver_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
)

// The poller's lost-claims series exists at zero before the first loss,
// so an increase() alert sees that loss.
func TestMetricsStartTheOutboxLostClaimsAtZero(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m := deliver.NewMetrics(reg)
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP queuebox_claims_lost_total Terminal writes that lost the claim: another worker owned the row.
# TYPE queuebox_claims_lost_total counter
queuebox_claims_lost_total{component="outbox"} 0
`), "queuebox_claims_lost_total"))
	m.ClaimsLost.Inc()
	require.Equal(t, 1.0, testutil.ToFloat64(m.ClaimsLost))
}
