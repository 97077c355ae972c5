package webhook_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/secret"
)

func TestStoredHeaders(t *testing.T) {
	t.Parallel()
	hmacSrc := source("hmac", "/hmac")
	hmacSrc.Auth = &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(webhookSecret), HeaderName: "X-Hub-Signature-256",
		TimestampHeader: "X-Timestamp", SignaturePayloadFormat: auth.PayloadBody, TimestampTolerance: 1000}
	keySrc := source("key", "/key")
	keySrc.Auth = &auth.Options{Kind: auth.KindAPIKey, Key: secret.New("k-1"), HeaderName: "X-Partner-Key"}
	ev := newEnv(t, nil, nil, hmacSrc, keySrc, source("open", "/open"))

	body := `{"id":"1"}`
	common := []string{"Authorization", "Bearer x", "Proxy-Authorization", "Basic y", "Cookie", "session=z",
		"X-Tenant", "first", "x-tenant", "acme", "X-Trace", "t-1"}
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/hmac", body,
		append([]string{"X-Hub-Signature-256", signature(body), "X-Timestamp", millis(t0)}, common...)...).Code)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/key", body, append([]string{"x-partner-key", "k-1"}, common...)...).Code)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/open", body, common...).Code)

	rows := ev.mem.Rows()
	require.Len(t, rows, 3)
	for _, row := range rows {
		h := row.Headers
		for _, name := range []string{"authorization", "proxy-authorization", "cookie", "x-hub-signature-256", "x-partner-key"} {
			require.NotContains(t, h, name, "source %s", row.Source)
		}
		require.Equal(t, "acme", h["x-tenant"], "one value per name, the last one")
		require.Equal(t, "t-1", h["x-trace"])
		require.Equal(t, "example.com", h["host"])
		require.Equal(t, h["x-correlation-id"], "", "no correlation header was received")
		for name := range h {
			require.Equal(t, strings.ToLower(name), name, "names are stored in lower case")
		}
	}
	require.Equal(t, millis(t0), rows[0].Headers["x-timestamp"], "the timestamp header is no credential and is kept")
}

func TestCorrelationID(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	long := strings.Repeat("é", 200)
	tests := []struct {
		name, sent, want string
	}{
		{"echoed", "corr-123", "corr-123"},
		{"control characters removed", "a\x01b\x7fc\u0085d", "abcd"},
		{"cut to 128 characters", long, long[:2*128]},
		{"only control characters", "\x01\x02", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := newRequest("/inbox/s", `{"id":"`+tt.name+`"}`)
			req.Header["X-Correlation-Id"] = []string{tt.sent} // bypass the header value checks of a client
			rec := ev.send(req)
			require.Equal(t, http.StatusAccepted, rec.Code, i)
			got := rec.Header().Get("X-Correlation-Id")
			if tt.want == "" {
				require.NoError(t, uuid.Validate(got), "a value that cleans to nothing is replaced")
				return
			}
			require.Equal(t, tt.want, got)
		})
	}
	rec := ev.post("/inbox/s", `{"id":"generated"}`)
	generated := rec.Header().Get("X-Correlation-Id")
	require.NoError(t, uuid.Validate(generated))
	for _, row := range ev.mem.Rows() {
		if row.IdempotencyKey == "generated" {
			require.Equal(t, generated, row.CorrelationID, "the row holds the value of the answer")
		}
		require.LessOrEqual(t, len([]rune(row.CorrelationID)), 128)
	}
}

func TestCorrelationIDOnLaterAnswers(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	for _, body := range []string{`{`, `{}`, `{"id":"1"}`, `{"id":"1"}`} {
		rec := ev.post("/inbox/s", body, "X-Correlation-Id", "c-1")
		require.Equal(t, "c-1", rec.Header().Get("X-Correlation-Id"), body)
	}
}
