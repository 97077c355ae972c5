package metrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/metrics"
)

// The registry carries the process memory under a queuebox_ name, and no
// Go runtime or process family (the reference allows none).
func TestRegistryExposesMemoryWithoutRuntimeFamilies(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry("1.0.0", time.Now())
	mem := family(t, reg, "queuebox_process_memory_bytes")
	require.Greater(t, mem.GetMetric()[0].GetGauge().GetValue(), float64(1<<20))
	_, _, body := scrape(t, reg, "")
	for _, prefix := range []string{"go_", "process_"} {
		require.NotContains(t, "\n"+body, "\n# TYPE "+prefix)
	}
}

func TestConnectionsGauge(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	g := metrics.NewConnectionsGauge(reg)
	g.WithLabelValues("data").Add(3)
	_, _, body := scrape(t, reg, "")
	require.True(t, strings.Contains(body, `queuebox_http_connections_open{server="data"} 3`), body)
}
