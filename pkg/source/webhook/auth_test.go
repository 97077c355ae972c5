package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/secret"
)

const webhookSecret = "whsec_test"

func signature(payload string) string {
	m := hmac.New(sha256.New, []byte(webhookSecret))
	m.Write([]byte(payload))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func millis(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

func TestSourceAuth(t *testing.T) {
	t.Parallel()
	bearer := source("bearer", "/bearer")
	bearer.Auth = &auth.Options{Kind: auth.KindBearer, Token: secret.New("tok")}
	apiKey := source("key", "/key")
	apiKey.Auth = &auth.Options{Kind: auth.KindAPIKey, Key: secret.New("k-1"), HeaderName: "X-API-Key"}
	plain := source("hmac", "/hmac")
	plain.Auth = &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(webhookSecret), HeaderName: "X-Hub-Signature-256"}
	stamped := source("stamped", "/stamped")
	stamped.Auth = &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(webhookSecret), HeaderName: "X-Signature",
		TimestampHeader: "X-Timestamp", TimestampTolerance: 300000, SignaturePayloadFormat: auth.PayloadTimestampDotBody}
	ev := newEnv(t, nil, nil, bearer, apiKey, plain, stamped)

	body := `{"id":"evt_1"}`
	fresh, old := millis(t0), millis(t0.Add(-10*time.Minute))
	tests := []struct {
		name, path string
		header     []string
		status     int
		want       string
	}{
		{"bearer ok", "/inbox/bearer", []string{"Authorization", "bearer tok"}, 202, ""},
		{"bearer missing", "/inbox/bearer", nil, 401, `{"error":"Missing Authorization header"}`},
		{"bearer wrong", "/inbox/bearer", []string{"Authorization", "Bearer nope"}, 401, `{"error":"Invalid bearer token"}`},
		{"bearer without scheme", "/inbox/bearer", []string{"Authorization", "tok"}, 401,
			`{"error":"Authorization header does not use the Bearer scheme"}`},
		{"api key ok", "/inbox/key", []string{"x-api-key", "k-1"}, 202, ""},
		{"api key missing", "/inbox/key", nil, 401, `{"error":"Missing X-API-Key header"}`},
		{"api key wrong", "/inbox/key", []string{"X-API-Key", "k-2"}, 401, `{"error":"Invalid API key"}`},
		{"hmac ok", "/inbox/hmac", []string{"X-Hub-Signature-256", signature(body)}, 202, ""},
		{"hmac wrong", "/inbox/hmac", []string{"X-Hub-Signature-256", signature(`{"id":"evt_2"}`)}, 401, `{"error":"Invalid signature"}`},
		{"hmac missing", "/inbox/hmac", nil, 401, `{"error":"Missing X-Hub-Signature-256 header"}`},
		{"timestamp ok", "/inbox/stamped", []string{"X-Timestamp", fresh, "X-Signature", signature(fresh + "." + body)}, 202, ""},
		{"fresh timestamp, old signature", "/inbox/stamped",
			[]string{"X-Timestamp", fresh, "X-Signature", signature(old + "." + body)}, 401, `{"error":"Invalid signature"}`},
		{"old timestamp", "/inbox/stamped", []string{"X-Timestamp", old, "X-Signature", signature(old + "." + body)}, 401,
			`{"error":"Timestamp outside the tolerance of 300000 ms"}`},
		{"timestamp missing", "/inbox/stamped", []string{"X-Signature", signature(body)}, 401, `{"error":"Missing X-Timestamp header"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := ev.post(tt.path, body, tt.header...)
			if tt.status == http.StatusAccepted {
				require.Equal(t, tt.status, rec.Code, rec.Body.String())
				return
			}
			requireAnswer(t, rec, tt.status, tt.want)
			require.Empty(t, rec.Header().Get("X-Correlation-Id"), "step 4 comes after the auth")
		})
	}
}

func TestAuthFailureStoresNothing(t *testing.T) {
	t.Parallel()
	src := source("s", "/s")
	src.Auth = &auth.Options{Kind: auth.KindBearer, Token: secret.New("tok")}
	ev := newEnv(t, nil, nil, src)
	require.Equal(t, http.StatusUnauthorized, ev.post("/inbox/s", `{"id":"1"}`).Code)
	require.Empty(t, ev.mem.Rows())
	require.Equal(t, 0.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "extraction_failed"))
}
