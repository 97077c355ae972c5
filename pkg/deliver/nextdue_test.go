package deliver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// With capture on and an hour between reconciliations, a row whose first
// publish fails is published again when its retry falls due: the poller
// asks the store for the next due row after its idle claim and wakes then.
// No capture runs here, so no wake-up for an insert arrives either; only
// the retry deadline can explain the second request within the test.
func TestARetryIsDeliveredWhenDueWithoutWaitingForReconciliation(t *testing.T) {
	t.Parallel()
	rc := brokertest.NewHTTPReceiver(t, brokertest.Statuses(http.StatusInternalServerError, http.StatusOK))
	e := newEnv(t, rc.URL)
	// Capture's reconciliation interval, which the wiring passes as the
	// poll interval when capture wakes the poller.
	e.settings.PollInterval = time.Hour
	// Long enough that the claim after the failed publish (its finish wakes
	// the loop) usually finds the retry not yet due.
	e.settings.RetryBaseDelay = 200 * time.Millisecond
	e.exec(t, `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{"n":1}')`)
	p, _ := e.poller(t)
	start(t, p)

	got := e.waitStates(t, "sent")
	require.Equal(t, 1, got[0].Attempt, "sent on its retry")
	require.Equal(t, 2, rc.Len(), "a failed publish, then the retry")
}
