package claim_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

func TestLostCounter(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	lost := claim.NewLostCounter()
	reg.MustRegister(lost)
	lost.WithLabelValues("outbox").Inc()
	lost.WithLabelValues("outbox").Inc()
	lost.WithLabelValues("inbox").Inc()

	want := `
# HELP queuebox_claims_lost_total Terminal writes that lost the claim: another worker owned the row.
# TYPE queuebox_claims_lost_total counter
queuebox_claims_lost_total{component="inbox"} 1
queuebox_claims_lost_total{component="outbox"} 2
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), "queuebox_claims_lost_total"))
}
