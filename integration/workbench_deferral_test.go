package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// deferredRow is an outbox row of the workbench list with its deferral.
type deferredRow struct {
	ID, State, Topic string
	Deferral         *struct {
		Reason, Replica string
		Detail          *string
		Until           time.Time
	}
}

// TestWorkbenchShowsDeferredRows: through the built binary, a receiver
// that answers 500 opens its destination's breaker and one that answers
// 429 with Retry-After pauses its own; the workbench lists every pending
// row of the first as deferred by circuit_open and of the second by
// retry_after, each until about the end of its pause, with its cause,
// and the message page says the same; every answer holds to the
// document.
func TestWorkbenchShowsDeferredRows(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	failing := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusInternalServerError))
	limited := brokertest.NewHTTPReceiver(t, func(brokertest.HTTPRequest) brokertest.Answer {
		return brokertest.Answer{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"120"}}}
	})
	env := with(twoDestinations(db.env(), failing.URL, limited.URL),
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "10",
		"QUEUEBOX_DESTINATIONS_SLOW_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD", "3",
		"QUEUEBOX_DESTINATIONS_SLOW_FLOWCONTROL_CIRCUITBREAKER_OPENMS", "60000",
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "bearer",
		"QUEUEBOX_ADMIN_AUTH_TOKEN", "adm1n-t0ken-0123456789", "QUEUEBOX_ADMIN_VIEWER_TOKEN", "v1ewer-t0ken-0123456789")
	p := startServing(t, "deliver", env)
	started := time.Now()
	insertRows(t, db, "slow.order", 8)
	insertRows(t, db, "fast.order", 4)
	api := newAPICheck(t, strings.TrimSuffix(p.url(""), "/"))
	list := func() []deferredRow {
		resp, body := api.do(call{method: http.MethodGet, url: p.url("/admin/messages?table=outbox&state=pending"),
			header: http.Header{"Authorization": {wbViewer}}})
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		var page struct{ Items []deferredRow }
		require.NoError(t, json.Unmarshal(body, &page))
		return page.Items
	}
	var rows []deferredRow
	require.Eventually(t, func() bool {
		rows = list()
		if len(rows) != 12 {
			return false
		}
		for _, r := range rows {
			if r.Deferral == nil {
				return false
			}
		}
		return true
	}, 60*time.Second, 100*time.Millisecond, "every pending row shows its deferral")
	for _, r := range rows {
		d := r.Deferral
		require.NotNil(t, d.Detail, r.Topic)
		require.NotEmpty(t, d.Replica)
		if strings.HasPrefix(r.Topic, "slow.") {
			require.Equal(t, "circuit_open", d.Reason)
			require.Contains(t, *d.Detail, "3 consecutive failed attempts")
			require.WithinRange(t, d.Until, started.Add(55*time.Second), time.Now().Add(61*time.Second))
		} else {
			require.Equal(t, "retry_after", d.Reason)
			require.Contains(t, *d.Detail, "429")
			require.WithinRange(t, d.Until, started.Add(115*time.Second), time.Now().Add(121*time.Second))
		}
	}

	resp, body := api.do(call{method: http.MethodGet, url: p.url("/admin/messages/" + rows[0].ID + "?table=outbox"),
		header: http.Header{"Authorization": {wbAdmin}}})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var one deferredRow
	require.NoError(t, json.Unmarshal(body, &one))
	require.Equal(t, rows[0].Deferral.Reason, one.Deferral.Reason)
	require.True(t, rows[0].Deferral.Until.Equal(one.Deferral.Until))
}
