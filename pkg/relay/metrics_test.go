package relay_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/relay"
)

// The relay's lost-claims series exists at zero before the first loss, so
// an increase() alert sees that loss.
func TestMetricsStartTheInboxLostClaimsAtZero(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m := relay.NewMetrics(reg)
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP queuebox_claims_lost_total Terminal writes that lost the claim: another worker owned the row.
# TYPE queuebox_claims_lost_total counter
queuebox_claims_lost_total{component="inbox"} 0
`), "queuebox_claims_lost_total"))
	m.ClaimsLost.Inc()
	require.Equal(t, 1.0, testutil.ToFloat64(m.ClaimsLost))
}

// The relay and the inbox sources share queuebox_inbox_messages_total: a
// process that runs both registers the family once, in either order, and
// both count into the one series set. Before, the relay registered it
// with another help text and panicked on a registry that held the
// sources' family.
func TestMetricsShareTheInboxMessagesFamilyWithTheSources(t *testing.T) {
	t.Parallel()
	for _, relayFirst := range []bool{true, false} {
		reg := prometheus.NewRegistry()
		var m *relay.Metrics
		if relayFirst {
			m = relay.NewMetrics(reg)
		}
		_, err := ingest.NewMetrics(reg)
		require.NoError(t, err)
		if !relayFirst {
			require.NotPanics(t, func() { m = relay.NewMetrics(reg) })
		}
		m.Messages.WithLabelValues("forwarded").Inc()
		require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP queuebox_inbox_messages_total The inbox messages per status.
# TYPE queuebox_inbox_messages_total counter
queuebox_inbox_messages_total{status="duplicate"} 0
queuebox_inbox_messages_total{status="forwarded"} 1
queuebox_inbox_messages_total{status="new"} 0
`), "queuebox_inbox_messages_total"))
	}
}
