package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The configuration of examples/nats-bridge loads with no warning, with
// its defaults and with the names the smoke test sets.
func TestNATSBridgeExampleLoads(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples/nats-bridge/queuebox.yml"))
	require.NoError(t, err)
	cfg := mustLoad(t, testOptions(string(data)))
	require.Empty(t, cfg.Warnings())
	src := cfg.Sources["orders"]
	require.Equal(t, KindNATS, src.Kind)
	require.Equal(t, "ORDERS", src.Stream)
	require.Equal(t, "orders.>", src.FilterSubject)
	d := cfg.Destinations["processed"]
	require.Equal(t, KindNATS, d.Kind)
	require.Equal(t, "processed.{{ topic }}", d.Subject)
	require.True(t, d.JetStream)

	cfg = mustLoad(t, testOptions(string(data), "ORDERS_STREAM=ORDERS_SMOKE_1", "ORDERS_SUBJECT=orders_smoke_1"))
	require.Equal(t, "ORDERS_SMOKE_1", cfg.Sources["orders"].Stream)
	require.Equal(t, "orders_smoke_1.>", cfg.Sources["orders"].FilterSubject)
}
