package deliver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
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
