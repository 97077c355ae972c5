package integration

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestIdleWorkersReportTheOutageAndRecover blocks the database of an idle
// queuebox-deliver and queuebox-relay: readiness names the database and
// the worker down while liveness stays 200, and both answer healthy again
// once the database takes connections, with no row to claim and no
// restart.
func TestIdleWorkersReportTheOutageAndRecover(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_SOURCES_HOOKS_TYPE", "http",
		"QUEUEBOX_SOURCES_HOOKS_PATH", "/hooks",
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_HOOKS_EVENTTYPEPATH", "$.type",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	deliver := startServing(t, "deliver", env)
	relay := startServing(t, "relay", env)
	waitHealthy(t, deliver)
	waitHealthy(t, relay)

	cut := newOutage(t, db)
	cut.block()
	waitDown(t, deliver, "database", "outbox-poller")
	waitDown(t, relay, "database", "inbox-relay")
	code, _ := get(t, deliver.url("/health/live"))
	require.Equal(t, http.StatusOK, code, "liveness touches no dependency")
	cut.unblock()

	waitHealthy(t, deliver)
	waitHealthy(t, relay)
	requireRunning(t, deliver)
	requireRunning(t, relay)
}
