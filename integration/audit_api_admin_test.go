package integration

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

const (
	auditDeadID = "3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10"
	auditSentID = "9b7e5d2c-1a3f-4e8b-b6c4-0f1e2d3c4b5a"
)

// startAdminDeliver runs queuebox-deliver with bearer-protected admin
// routes on a management port and returns the process (pointed at the
// management port) and its data port.
func startAdminDeliver(t *testing.T, db database, rcURL string) (*process, int) {
	t.Helper()
	data, mgmt := freePort(t), freePort(t)
	env := with(destinationEnv(db.env(), rcURL),
		"QUEUEBOX_SERVER_HTTPPORT", itoa(data), "QUEUEBOX_SERVER_MANAGEMENTPORT", itoa(mgmt),
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "bearer",
		"QUEUEBOX_ADMIN_AUTH_TOKEN", "adm1n-t0ken-0123456789", "QUEUEBOX_ADMIN_MAXPAYLOADBYTES", "1024")
	p := start(t, "deliver", env)
	p.port = mgmt
	p.waitHTTP(t, "/health/ready", http.StatusOK)
	return p, data
}

func outboxState(t *testing.T, db database, id string) string {
	t.Helper()
	var state string
	require.NoError(t, db.connect(t).QueryRow(context.Background(),
		`SELECT state FROM outbox WHERE id = $1`, id).Scan(&state))
	return state
}

// TestAuditAPIReplayMovesOnlyWhatTheFilterNames: an empty ids list next to
// a topic moves nothing; a list of ids moves exactly those rows, the poller
// delivers them again, and the log line carries the filter and the count.
func TestAuditAPIReplayMovesOnlyWhatTheFilterNames(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	p, data := startAdminDeliver(t, db, rc.URL)
	_, err := db.connect(t).Exec(context.Background(), `INSERT INTO outbox (id, topic, payload, state, attempt, last_error) VALUES
		($1, 'order.created', '{"n":1}', 'dead', 5, 'boom'),
		($2, 'order.created', '{"n":2}', 'sent', 1, NULL)`, auditDeadID, auditSentID)
	require.NoError(t, err)
	token := []string{"Authorization", "Bearer adm1n-t0ken-0123456789"}

	code, body, _ := post(t, p.url("/admin/replay"), `{"ids":["`+auditDeadID+`"]}`)
	require.Equal(t, http.StatusUnauthorized, code)
	require.NotContains(t, body, "adm1n-t0ken-0123456789")

	code, body, _ = post(t, p.url("/admin/replay"), `{"ids":[],"topic":"order.created"}`, token...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":0}`, body)
	require.Equal(t, "dead", outboxState(t, db, auditDeadID))
	require.Equal(t, "sent", outboxState(t, db, auditSentID))

	code, body, _ = post(t, p.url("/admin/replay"), `{"ids":["`+auditDeadID+`"],"misspelt":true}`, token...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":1}`, body)
	require.Eventually(t, func() bool { return outboxState(t, db, auditDeadID) == "sent" },
		30*time.Second, 20*time.Millisecond)
	require.Len(t, rc.Requests(), 1, "only the replayed row reached the destination")
	require.JSONEq(t, `{"n":1}`, rc.Requests()[0].Body)
	require.Equal(t, "sent", outboxState(t, db, auditSentID))

	var found bool
	for _, line := range strings.Split(p.out.String(), "\n") {
		var entry struct {
			Msg    string
			Moved  int64
			Filter map[string]any
		}
		if json.Unmarshal([]byte(line), &entry) != nil || entry.Msg != "replay" || entry.Moved != 1 {
			continue
		}
		require.Equal(t, map[string]any{"ids": []any{auditDeadID}}, entry.Filter, line)
		found = true
	}
	require.True(t, found, "a replay log line with the filter and the count:\n%s", p.out.String())

	p.port = data
	code, _, _ = post(t, p.url("/admin/replay"), `{"ids":["`+auditDeadID+`"]}`, token...)
	require.Equal(t, http.StatusNotFound, code, "the data port has no admin routes")
}

// TestAuditAPITransformTestAnswers: the transform test evaluates with the
// mock context, and a body over admin.maxPayloadBytes gets 413 in the
// shape of the route.
func TestAuditAPITransformTestAnswers(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	p, _ := startAdminDeliver(t, db, rc.URL)
	token := []string{"Authorization", "Bearer adm1n-t0ken-0123456789"}

	code, body, header := post(t, p.url("/admin/transform/test"),
		`{"expression":"{ \"total\": $sum(items.(price * qty)), \"topic\": $topic }","payload":{"items":[{"price":10,"qty":2},{"price":5,"qty":3}]},"mockTopic":"order.created"}`,
		token...)
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, header.Get("Content-Type"), "application/json")
	var ok struct {
		Success bool
		Result  map[string]any
		Context struct {
			MessageID, Topic, Timestamp string
			Attempt                     int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &ok))
	require.True(t, ok.Success)
	require.Equal(t, map[string]any{"total": 35.0, "topic": "order.created"}, ok.Result)
	require.Equal(t, "order.created", ok.Context.Topic)
	require.NotEmpty(t, ok.Context.MessageID)
	require.NotEmpty(t, ok.Context.Timestamp)

	code, body, _ = post(t, p.url("/admin/transform/test"), `{"expression":"$","payload":"`+strings.Repeat("x", 2000)+`"}`, token...)
	require.Equal(t, http.StatusRequestEntityTooLarge, code)
	require.JSONEq(t, `{"success":false,"error":"Request body exceeds 1024 bytes"}`, body)

	code, body, _ = post(t, p.url("/admin/transform/test"), `{"expression":"$","payload":{}}`, "Authorization", "Bearer wrong")
	require.Equal(t, http.StatusUnauthorized, code)
	var denied map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &denied))
	require.Equal(t, false, denied["success"])
	require.NotEmpty(t, denied["error"])
}

// TestHeadAnswersLikeGet: load balancers and uptime checks probe with
// HEAD; the health routes, /metrics and the admin UI answer it as they
// answer GET, without a body, instead of 405.
func TestHeadAnswersLikeGet(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	p, _ := startAdminDeliver(t, db, "http://127.0.0.1:9")
	for _, path := range []string{"/health/live", "/health/ready", "/health", "/metrics", "/admin/ui/", "/admin/ui/app.js"} {
		req, err := http.NewRequest(http.MethodHead, p.url(path), nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err, path)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.Empty(t, body, path)
	}
}
