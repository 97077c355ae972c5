package relayrole

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/health"
	"github.com/alternayte/queuebox/pkg/run"
)

// testApp needs no database: with the relay and retention off, wire
// opens no statement.
func testApp(cfg config.Config) *run.App {
	return &run.App{Name: "queuebox-relay", Config: &cfg, Log: slog.New(slog.DiscardHandler),
		Registry: prometheus.NewRegistry(), Health: health.New()}
}

// With inbox.relay.enabled false the relay families still show, the gauge
// at zero, as the monitoring page promises; no component runs.
func TestWireWithTheRelayOffKeepsTheRelayMetrics(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Inbox.Relay.Enabled = false
	app := testApp(cfg)
	components, err := wire(context.Background(), app)
	require.NoError(t, err)
	require.Empty(t, components)
	require.NotContains(t, app.Health.Names(), "inbox-relay")

	n, err := testutil.GatherAndCount(app.Registry,
		"queuebox_inbox_oldest_pending_age_seconds", "queuebox_inbox_relay_errors_total")
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.NoError(t, testutil.GatherAndCompare(app.Registry, strings.NewReader(`
# HELP queuebox_inbox_oldest_pending_age_seconds Age in seconds of the oldest pending inbox row; zero when none is pending.
# TYPE queuebox_inbox_oldest_pending_age_seconds gauge
queuebox_inbox_oldest_pending_age_seconds 0
`), "queuebox_inbox_oldest_pending_age_seconds"))
}
