package metrics_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/metrics"
)

func counterVec(help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "queuebox_test_total", Help: help}, []string{"kind"})
}

func TestRegisterSharesAnEqualFamily(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	first, err := metrics.Register(reg, counterVec("Test events."))
	require.NoError(t, err)
	second, err := metrics.Register(reg, counterVec("Test events."))
	require.NoError(t, err)
	require.Same(t, first, second, "the second registration returns the first family")

	first.WithLabelValues("a").Inc()
	second.WithLabelValues("a").Inc()
	require.Equal(t, 2.0, testutil.ToFloat64(first.WithLabelValues("a")))
	n, err := testutil.GatherAndCount(reg, "queuebox_test_total")
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

func TestRegisterRefusesAnotherDefinitionOfTheName(t *testing.T) {
	t.Parallel()
	t.Run("another help", func(t *testing.T) {
		t.Parallel()
		reg := prometheus.NewRegistry()
		metrics.MustRegister(reg, counterVec("Test events."))
		_, err := metrics.Register(reg, counterVec("Other events."))
		require.Error(t, err)
		require.Panics(t, func() { metrics.MustRegister(reg, counterVec("Other events.")) })
	})
	t.Run("another type", func(t *testing.T) {
		t.Parallel()
		reg := prometheus.NewRegistry()
		metrics.MustRegister(reg, counterVec("Test events."))
		// An equal descriptor held by a collector of another Go type cannot
		// be handed back as the caller's type.
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "queuebox_test_total", Help: "Test events."}, []string{"kind"})
		got, err := metrics.Register(reg, g)
		require.Error(t, err)
		require.Same(t, g, got)
	})
}

func TestRegisterWithoutRegistry(t *testing.T) {
	t.Parallel()
	c := counterVec("Test events.")
	got, err := metrics.Register(nil, c)
	require.NoError(t, err)
	require.Same(t, c, got)
}
