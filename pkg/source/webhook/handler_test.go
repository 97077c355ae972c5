package webhook_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestNewMessageIsStored(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("orders", "/orders"))
	rec := ev.post("/inbox/orders", `{"id":"order-1","type":"order.created","customer":"c-9","total":42}`,
		"X-Tenant", "acme")
	require.Equal(t, http.StatusAccepted, rec.Code)
	require.Regexp(t, regexp.MustCompile(`^\{"messageId":"[0-9a-f-]{36}"\}\n$`), rec.Body.String())
	rows := ev.mem.Rows()
	require.Len(t, rows, 1)
	row := rows[0]
	require.Equal(t, `{"messageId":"`+row.ID+`"}`, strings.TrimSpace(rec.Body.String()))
	require.Equal(t, "orders", row.Source)
	require.Equal(t, "order-1", row.IdempotencyKey)
	require.Equal(t, "order.created", *row.EventType)
	require.Equal(t, "c-9", *row.AggregateID)
	require.JSONEq(t, `{"id":"order-1","type":"order.created","customer":"c-9","total":42}`, string(row.Payload))
	require.Equal(t, "push", row.Consumption)
	require.Equal(t, "acme", row.Headers["x-tenant"])
	require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_messages_total", "status", "new"))
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		header []string
		status int
		want   string
		reason string // the rejection counted, if any
	}{
		{name: "new", body: `{"id":"a"}`, status: 202},
		{name: "number key", body: `{"id":12}`, status: 202},
		{name: "invalid JSON", body: `{"id":`, status: 400, want: `{"error":"Invalid JSON"}`, reason: "extraction_failed"},
		{name: "form body with a JSON content type", body: `id=1`, header: []string{"Content-Type", "application/json"},
			status: 400, want: `{"error":"Invalid JSON"}`, reason: "extraction_failed"},
		{name: "JSON with a text content type", body: `{"id":"t"}`, header: []string{"Content-Type", "text/plain"}, status: 202},
		{name: "empty body", body: ``, status: 400, want: `{"error":"Invalid JSON"}`, reason: "extraction_failed"},
		{name: "key missing", body: `{"other":1}`, status: 400,
			want: `{"error":"Idempotency key not found at $.id"}`, reason: "extraction_failed"},
		{name: "key null", body: `{"id":null}`, status: 400,
			want: `{"error":"Idempotency key at $.id is not a string, number or boolean"}`, reason: "extraction_failed"},
		{name: "key object", body: `{"id":{"a":1}}`, status: 400,
			want: `{"error":"Idempotency key at $.id is not a string, number or boolean"}`, reason: "extraction_failed"},
		{name: "key empty", body: `{"id":""}`, status: 400,
			want: `{"error":"Idempotency key at $.id is empty"}`, reason: "extraction_failed"},
		{name: "key array body", body: `[1]`, status: 400,
			want: `{"error":"Idempotency key not found at $.id"}`, reason: "extraction_failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := newEnv(t, nil, nil, source("s", "/s"))
			rec := ev.post("/inbox/s", tt.body, tt.header...)
			if tt.want == "" {
				require.Equal(t, tt.status, rec.Code, rec.Body.String())
				require.Contains(t, rec.Body.String(), `"messageId"`)
			} else {
				requireAnswer(t, rec, tt.status, tt.want)
				require.Empty(t, ev.mem.Rows())
			}
			if tt.reason != "" {
				require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", tt.reason))
			}
			again := ev.post("/inbox/s", tt.body, tt.header...)
			if tt.status >= 400 {
				require.Equal(t, rec.Code, again.Code, "a 4xx answer does not change on a repeat")
				require.Equal(t, rec.Body.String(), again.Body.String())
			}
		})
	}
}

func TestAttributeLimits(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	long := strings.Repeat("é", 256)
	requireAnswer(t, ev.post("/inbox/s", `{"id":"`+long+`"}`), 400,
		`{"error":"Idempotency key at $.id is longer than 255 characters"}`)
	requireAnswer(t, ev.post("/inbox/s", `{"id":"a","type":"`+long+`"}`), 400,
		`{"error":"Event type at $.type is longer than 255 characters"}`)
	requireAnswer(t, ev.post("/inbox/s", `{"id":"a","customer":"`+long+`"}`), 400,
		`{"error":"Aggregate id at $.customer is longer than 255 characters"}`)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/s", `{"id":"`+long[:2*255]+`"}`).Code,
		"255 characters pass, whatever their byte count")
	require.Equal(t, 3.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "extraction_failed"))
}

func TestOptionalAttributes(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	for _, body := range []string{`{"id":"1"}`, `{"id":"2","type":null,"customer":{"x":1}}`, `{"id":"3","type":["a"]}`,
		`{"id":"5","type":"","customer":""}`} {
		require.Equal(t, http.StatusAccepted, ev.post("/inbox/s", body).Code, body)
	}
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/s", `{"id":"4","type":true,"customer":7.50}`).Code)
	rows := ev.mem.Rows()
	// Row 5: an empty string is no aggregate (no ordering), no event type.
	for _, r := range rows[:4] {
		require.Nil(t, r.EventType, r.IdempotencyKey)
		require.Nil(t, r.AggregateID, r.IdempotencyKey)
	}
	require.Equal(t, "true", *rows[4].EventType)
	require.Equal(t, "7.50", *rows[4].AggregateID, "a number keeps the text of the body")

	noPaths := source("bare", "/bare")
	noPaths.Receive.EventTypePath, noPaths.Receive.AggregateIDPath = "", ""
	ev = newEnv(t, nil, nil, noPaths)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/bare", `{"id":"1","type":"x","customer":"c"}`).Code)
	require.Nil(t, ev.mem.Rows()[0].EventType)
	require.Nil(t, ev.mem.Rows()[0].AggregateID)
}

func TestDuplicate(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"), source("t", "/t"))
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/s", `{"id":"evt_1"}`).Code)
	requireAnswer(t, ev.post("/inbox/s", `{"id":"evt_1","changed":true}`), 200, `{"status":"duplicate"}`)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/t", `{"id":"evt_1"}`).Code, "another source holds its own keys")
	require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_messages_total", "status", "duplicate"))
	require.Equal(t, 2.0, ev.counter(t, "queuebox_inbox_messages_total", "status", "new"))
}

func TestStorageFailed(t *testing.T) {
	t.Parallel()
	store := &memStore{Fail: errDown}
	ev := newEnv(t, store, nil, source("s", "/s"))
	rec := ev.post("/inbox/s", `{"id":"a"}`)
	requireAnswer(t, rec, 500, `{"error":"Storage failed"}`)
	require.NotEmpty(t, rec.Header().Get("X-Correlation-Id"))
	require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "storage_failed"))
	require.Equal(t, 0.0, ev.counter(t, "queuebox_inbox_messages_total", "status", "new"))
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("stripe", "/stripe"), source("nested", "hooks/github/"))
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/stripe", `{"id":"1"}`).Code)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/hooks/github", `{"id":"1"}`).Code)
	rec := ev.post("/inbox/unknown", `{"id":"1"}`)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Equal(t, http.StatusNotFound, ev.post("/stripe", `{"id":"1"}`).Code, "the source name or path alone is no route")
	require.Len(t, ev.mem.Rows(), 2)
	require.Equal(t, "nested", ev.mem.Rows()[1].Source, "the row holds the source name, not the path")
}

func TestMessageIDIsAUUID(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	ev.post("/inbox/s", `{"id":"a"}`)
	require.NoError(t, uuid.Validate(ev.mem.Rows()[0].ID))
}

func TestNULCharacterIsRefusedNotRetried(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("orders", "/orders"))
	for _, body := range []string{`{"id":"a","note":"x\u0000y"}`, `{"id":"b","k\u0000":1}`} {
		rec := ev.post("/inbox/orders", body)
		require.Equal(t, http.StatusBadRequest, rec.Code, body)
		require.Contains(t, rec.Body.String(), `\\u0000`)
	}
	rec := ev.post("/inbox/orders", `{"id":"c","note":"a \\u0000 written out"}`)
	require.Equal(t, http.StatusAccepted, rec.Code, "an escaped backslash is no NUL")
	require.Len(t, ev.mem.Rows(), 1)
}
