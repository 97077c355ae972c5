package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestDeliveryLedgerRecordsEveryAttempt: a receiver answers 503 with a
// body twice, then 200. Through the built queuebox, the row is sent on its
// third attempt, and GET /admin/messages/{id}/attempts (held to
// docs/openapi.yaml) lists the three attempts newest first, with the
// statuses 200, 503, 503, the attempt numbers the receiver saw and the
// start of the 503 body, in which the destination's secret and a token
// are masked. queuebox dead show prints the same attempts.
func TestDeliveryLedgerRecordsEveryAttempt(t *testing.T) {
	t.Parallel()
	const (
		id     = "1ed6e000-0000-4000-8000-000000000001"
		token  = "ledger-admin-token"
		secret = "Ledger-s3cret-KEY-42"
	)
	var n atomic.Int32
	rc := brokertest.NewHTTPReceiver(t, func(brokertest.HTTPRequest) brokertest.Answer {
		if n.Add(1) <= 2 {
			return brokertest.Answer{Status: http.StatusServiceUnavailable,
				Body: `{"error":"busy","detail":"upstream refused key ` + secret + `","token":"tok-123456"}`}
		}
		return brokertest.Answer{Status: http.StatusOK, Body: "thanks"}
	})
	db := newDatabase(t)
	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_DESTINATIONS_WEBHOOK_AUTH_HEADERNAME", "X-Api-Key",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_AUTH_HEADERVALUE", secret,
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "10",
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "bearer", "QUEUEBOX_ADMIN_AUTH_TOKEN", token)
	p := startServing(t, "queuebox", env)
	psqlExec(t, db, `INSERT INTO outbox (id, topic, payload) VALUES ('`+id+`', 'order.created', '{"n":1}')`)
	require.Eventually(t, func() bool {
		return len(psqlRows(t, db, `SELECT 1 FROM outbox WHERE id = '`+id+`' AND state = 'sent'`)) == 1
	}, time.Minute, 20*time.Millisecond, "the row is sent on its third attempt")

	api := newAPICheck(t, p.url(""))
	resp, body := api.do(call{method: http.MethodGet, url: p.url("/admin/messages/" + id + "/attempts"),
		header: http.Header{"Authorization": {"Bearer " + token}}})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var got struct {
		MessageID string `json:"messageId"`
		Truncated bool
		Items     []struct {
			OutboxID     string  `json:"outboxId"`
			Destination  string  `json:"destination"`
			Attempt      int     `json:"attempt"`
			Outcome      string  `json:"outcome"`
			FailureClass *string `json:"failureClass"`
			Status       *string `json:"status"`
			Answer       *string `json:"answer"`
			StartedAt    time.Time
			DurationMs   int64
		}
	}
	require.NoError(t, json.Unmarshal(body, &got))
	require.Equal(t, id, got.MessageID)
	require.False(t, got.Truncated)
	require.Len(t, got.Items, 3, "one attempt per publish")
	var statuses, outcomes []string
	var numbers []int
	for i, a := range got.Items {
		require.Equal(t, id, a.OutboxID)
		require.Equal(t, "webhook", a.Destination)
		require.NotNil(t, a.Status)
		statuses, outcomes, numbers = append(statuses, *a.Status), append(outcomes, a.Outcome), append(numbers, a.Attempt)
		require.GreaterOrEqual(t, a.DurationMs, int64(0))
		if i > 0 {
			require.False(t, a.StartedAt.After(got.Items[i-1].StartedAt), "newest first")
		}
	}
	require.Equal(t, []string{"200", "503", "503"}, statuses)
	require.Equal(t, []string{"sent", "failed", "failed"}, outcomes)
	require.Equal(t, []int{2, 1, 0}, numbers, "the X-Attempt of each request")
	require.Nil(t, got.Items[0].Answer, "a sent attempt keeps no answer")
	require.Nil(t, got.Items[0].FailureClass)
	for _, a := range got.Items[1:] {
		require.Equal(t, "http_5xx", *a.FailureClass)
		require.NotNil(t, a.Answer)
		require.Contains(t, *a.Answer, `"error":"busy"`, "the start of the body")
		require.Contains(t, *a.Answer, "upstream refused key ***")
		require.NotContains(t, *a.Answer, secret)
		require.NotContains(t, *a.Answer, "tok-123456")
	}

	code, stdout, stderr := cli(t, db.env(), "dead", "show", id)
	require.Equal(t, 0, code, stderr)
	_, section, ok := strings.Cut(stdout, "attempts:")
	require.True(t, ok, stdout)
	lines := strings.Split(strings.TrimSpace(section), "\n")
	require.Len(t, lines, 4, "a header and three attempts:\n%s", section)
	for i, want := range []string{"sent", "failed", "failed"} {
		require.Contains(t, lines[i+1], want)
	}
	require.Contains(t, lines[2], "http_5xx")
	require.Contains(t, lines[2], "503")
	require.NotContains(t, stdout, secret)
}
