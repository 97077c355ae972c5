package deliverrole

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
)

func TestPollIntervalFollowsCapture(t *testing.T) {
	t.Parallel()
	ob := config.Default().Outbox
	ob.PollIntervalMs = 60000
	ob.Capture.ReconciliationIntervalMs = 1500
	require.Equal(t, 60*time.Second, pollInterval(ob), "polling mode keeps pollIntervalMs")
	for _, mode := range []string{config.CapturePostgresLogical, config.CaptureSQLServerCDC} {
		ob.Capture.Mode = mode
		ob.Capture.Enabled = false // a replica that does not own capture is woken too
		require.Equal(t, 1500*time.Millisecond, pollInterval(ob), mode)
	}
}

// The defaults of the poller are the defaults of the outbox keys, so a
// poller built in code behaves as a loaded configuration does.
func TestPollerSettingsOfTheDefaults(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	require.Equal(t, deliver.Options{
		BatchSize: deliver.DefaultBatchSize, Concurrency: deliver.DefaultConcurrency,
		PollInterval: deliver.DefaultPollInterval, ClaimTimeout: deliver.DefaultClaimTimeout,
		ShutdownTimeout: deliver.DefaultShutdownTimeout, RetryBaseDelay: time.Second,
		PendingGaugeInterval: deliver.DefaultPendingGaugeInterval, MaxErrorBytes: deliver.DefaultMaxErrorBytes,
	}, pollerSettings(&cfg))
}
