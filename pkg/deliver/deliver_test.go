package deliver_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

func TestFirstMessageIsDeliveredOnceWithEveryHeader(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, ok)
	e := newEnv(t, rc.URL)
	e.exec(t, `INSERT INTO outbox (topic, key, payload, headers) VALUES ('order.created', 'order-1001', '{"orderId":"1001","amount":42}', '{"X-Tenant":"acme"}')`)
	p, m := e.poller(t)
	start(t, p)
	rows := e.waitStates(t, "sent")
	require.Equal(t, 0, rows[0].Attempt)
	got := rc.Requests()
	require.Len(t, got, 1)
	r := got[0]
	require.Equal(t, "/webhook", r.Path)
	require.JSONEq(t, `{"orderId":"1001","amount":42}`, r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	require.Equal(t, rows[0].ID, r.Header.Get("X-Message-Id"))
	require.Equal(t, "order.created", r.Header.Get("X-Topic"))
	require.Equal(t, "0", r.Header.Get("X-Attempt"))
	require.Equal(t, "order-1001", r.Header.Get("X-Message-Key"))
	require.Equal(t, "acme", r.Header.Get("X-Tenant"))
	waitCount(t, m.Messages.WithLabelValues("sent"), 1)
	require.Equal(t, 1.0, testutil.ToFloat64(m.DestinationMessages.WithLabelValues("webhook-api", "success")))
}

func TestRetriesUpToTheRowCeilingThenDead(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, func(request) int { return http.StatusServiceUnavailable })
	e := newEnv(t, rc.URL)
	e.exec(t, `INSERT INTO outbox (topic, payload, max_attempts) VALUES ('order.created', '{}', 2)`)
	p, m := e.poller(t)
	start(t, p)
	rows := e.waitStates(t, "dead")
	require.Equal(t, 2, rows[0].Attempt)
	require.NotNil(t, rows[0].LastError)
	require.Contains(t, *rows[0].LastError, "503")
	got := rc.Requests()
	require.Len(t, got, 3, "max_attempts = 2 gives three deliveries")
	for i, r := range got {
		require.Equal(t, strconv.Itoa(i), r.Header.Get("X-Attempt"))
		require.Empty(t, r.Header.Values("X-Message-Key"), "no key, no header")
	}
	waitCount(t, m.Messages.WithLabelValues("failed"), 2)
	waitCount(t, m.Messages.WithLabelValues("dead"), 1)
}

func TestARedirectIsAFailedAttempt(t *testing.T) {
	t.Parallel()
	target := newReceiver(t, ok)
	rc := newReceiver(t, func(request) int { return http.StatusFound })
	e := newEnv(t, rc.URL)
	_ = target
	e.exec(t, `INSERT INTO outbox (topic, payload, max_attempts) VALUES ('order.created', '{}', 0)`)
	p, _ := e.poller(t)
	start(t, p)
	rows := e.waitStates(t, "dead")
	require.Contains(t, *rows[0].LastError, "302")
	require.Empty(t, target.Requests())
}

func TestNoRouteGoesDeadAtOnce(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, ok)
	e := newEnv(t, rc.URL)
	e.exec(t, `INSERT INTO outbox (topic, payload) VALUES ('invoice.paid', '{}')`)
	p, _ := e.poller(t)
	start(t, p)
	rows := e.waitStates(t, "dead")
	require.Equal(t, "No route matches topic invoice.paid", *rows[0].LastError)
	require.Equal(t, 0, rows[0].Attempt)
	require.Empty(t, rc.Requests())
}

func TestAFutureScheduleWaits(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, ok)
	e := newEnv(t, rc.URL)
	e.exec(t, `INSERT INTO outbox (topic, payload, scheduled_at) VALUES ('order.created', '{"n":1}', now() + interval '1 hour')`)
	e.exec(t, `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{"n":2}')`)
	p, _ := e.poller(t)
	start(t, p)
	e.waitStates(t, "pending", "sent")
	require.Len(t, rc.Requests(), 1)
	e.exec(t, `UPDATE outbox SET scheduled_at = now() WHERE state = 'pending'`)
	e.waitStates(t, "sent", "sent")
}

func TestAPoisonRowGoesDeadAndReleasesItsKey(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, func(r request) int {
		if r.Body == `{"poison":true}` {
			return http.StatusBadRequest
		}
		return http.StatusOK
	})
	e := newEnv(t, rc.URL)
	e.exec(t, `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES
		('order.created', 'k', '{"poison": true}', 1), ('order.paid', 'k', '{"step": 2}', 5)`)
	p, _ := e.poller(t)
	start(t, p)
	e.waitStates(t, "dead", "sent")
	got := rc.Requests()
	require.Len(t, got, 3)
	require.Equal(t, `{"step":2}`, got[2].Body, "the next row of the key goes after the poison row died")
}

// A row whose headers column is valid JSON but not an object cannot be
// delivered as documented. It goes dead with a reason, and it never holds
// back the rows claimed with it.
func TestMalformedHeadersColumnGoesDeadAlone(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, ok)
	e := newEnv(t, rc.URL)
	e.exec(t, `INSERT INTO outbox (topic, payload, headers) VALUES ('order.created', '{"n":1}', '["x"]')`)
	e.exec(t, `INSERT INTO outbox (topic, payload, headers) VALUES ('order.created', '{"n":2}', 'null')`)
	e.exec(t, `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{"n":3}')`)
	p, _ := e.poller(t)
	start(t, p)
	rows := e.waitStates(t, "dead", "sent", "sent")
	require.Equal(t, 0, rows[0].Attempt)
	require.Contains(t, *rows[0].LastError, "headers column")
	require.Contains(t, *rows[0].LastError, "JSON object")
	require.Len(t, rc.Requests(), 2)
}
