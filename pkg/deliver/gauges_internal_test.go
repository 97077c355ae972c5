package deliver

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The queue depth counts a routed row under its destination column and a
// row not routed yet once under each destination its route names, so
// the pending deliveries of a fan-out count where they will go.
func TestQueueDepthCountsDeliveriesPerDestination(t *testing.T) {
	t.Parallel()
	routes := func(topic string) []string {
		switch topic {
		case "payment.paid":
			return []string{"ledger", "billing"}
		case "audit.seen":
			return []string{"audit"}
		}
		return nil
	}
	t.Run("routed and unrouted", func(t *testing.T) {
		t.Parallel()
		var st queuebox.PendingStats
		st.Add("payment.paid", "ledger", 3)
		st.Add("payment.paid", "billing", 5)
		st.Add("payment.paid", "", 2)
		st.Add("audit.seen", "", 1)
		st.Add("orphan", "", 4)
		require.Equal(t, map[string]int64{"ledger": 5, "billing": 7, "audit": 1}, queueDepth(st, routes))
	})
	t.Run("a store that reports topics only", func(t *testing.T) {
		t.Parallel()
		st := queuebox.PendingStats{ByTopic: map[string]int64{"payment.paid": 2, "audit.seen": 1}}
		require.Equal(t, map[string]int64{"ledger": 2, "billing": 2, "audit": 1}, queueDepth(st, routes))
	})
}
