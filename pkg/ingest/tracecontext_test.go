package ingest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
)

// A sender's tracestate and baggage reach the row, and so the relayed
// rows, only from a source that trusts the senders' trace context.
func TestTraceStateAndBaggageStoredOnlyWhenTrusted(t *testing.T) {
	t.Parallel()
	sent := []string{"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"tracestate", "vendor=steer", "baggage", "tenant=admin", "x-tenant", "a"}
	for _, trusted := range []bool{false, true} {
		src := source("hooks")
		src.TrustTraceContext = trusted
		ev := newReceiver(t, src, ingest.Transport{}, &memStore{})
		require.Equal(t, trusted, ev.r.TrustsTraceContext())
		_, err := ev.r.Receive(context.Background(), msg(`{"id":"a","type":"t"}`, sent...))
		require.NoError(t, err)
		h := ev.mem.Rows()[0].Headers
		require.Equal(t, "a", h["x-tenant"])
		require.Contains(t, h, "traceparent", "the caller puts QueueBox's own context there")
		if trusted {
			require.Equal(t, "vendor=steer", h["tracestate"])
			require.Equal(t, "tenant=admin", h["baggage"])
			continue
		}
		require.NotContains(t, h, "tracestate")
		require.NotContains(t, h, "baggage")
		require.NotContains(t, ev.r.StoredHeaders(map[string]string{"baggage": "x"}), "baggage")
	}
}
