package webhook_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/source/webhook"
)

func str(s string) *string { return &s }

func yes() *bool { b := true; return &b }

// Each case breaks two steps at once; the earlier step must answer.
func TestProcessingOrder(t *testing.T) {
	t.Parallel()
	newSource := func() *webhook.Source {
		s := source("s", "/s")
		s.Auth = &auth.Options{Kind: auth.KindBearer, Token: secret.New("tok")}
		s.Receive.Filter = &ingest.FilterSpec{Exclude: []ingest.FilterRule{{Header: "X-Test", Exists: yes()}}}
		s.RequestsPerMinute = 1
		return s
	}
	bearer := []string{"Authorization", "Bearer tok"}
	tests := []struct {
		name   string
		body   string
		header []string
		spend  bool // use the one token of the minute first
		status int
		want   string
	}{
		{"rate limit before the body", strings.Repeat("x", maxBody+1), nil, true, 429, ""},
		// Bearer and api-key credentials need no body: they are checked
		// before it is read (docs/security.md), so an unauthenticated
		// sender cannot make QueueBox read a body.
		{"bearer auth before the chunked body cap", strings.Repeat("x", maxBody+1), nil, false, 401, `{"error":"Missing Authorization header"}`},
		{"chunked body cap after bearer auth", strings.Repeat("x", maxBody+1), bearer, false, 413, `{"error":"Request body exceeds 2048 bytes"}`},
		{"auth before filter", `{"id":"1"}`, []string{"X-Test", "1"}, false, 401, `{"error":"Missing Authorization header"}`},
		{"filter before JSON", `not json`, append([]string{"X-Test", "1"}, bearer...), false, 202, `{"status":"filtered"}`},
		{"JSON before extraction", `{`, bearer, false, 400, `{"error":"Invalid JSON"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := newEnv(t, nil, nil, newSource())
			if tt.spend {
				require.Equal(t, http.StatusAccepted, ev.post("/inbox/s", `{"id":"first"}`, bearer...).Code)
			}
			rec := ev.postChunked("/inbox/s", tt.body, tt.header...)
			requireAnswer(t, rec, tt.status, tt.want)
		})
	}
}

func TestContentLengthOverCapAnswersBeforeTheRateLimit(t *testing.T) {
	t.Parallel()
	// The data port refuses a declared Content-Length above the cap in a
	// middleware that runs before every route; it spends no token.
	src := source("s", "/s")
	src.RequestsPerMinute = 1
	ev := newEnv(t, nil, nil, src)
	require.Equal(t, http.StatusRequestEntityTooLarge, ev.post("/inbox/s", strings.Repeat("x", maxBody+1)).Code)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/s", `{"id":"1"}`).Code)
}

// HMAC signs the body, so the documented order stays: the body is read
// under its cap first, then the signature is checked.
func TestHMACChecksAfterTheBodyCap(t *testing.T) {
	t.Parallel()
	src := source("s", "/s")
	src.Auth = &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(webhookSecret), HeaderName: "X-Signature"}
	ev := newEnv(t, nil, nil, src)
	requireAnswer(t, ev.postChunked("/inbox/s", strings.Repeat("x", maxBody+1)), 413, `{"error":"Request body exceeds 2048 bytes"}`)
	requireAnswer(t, ev.postChunked("/inbox/s", `{"id":"1"}`), 401, `{"error":"Missing X-Signature header"}`)
}

// A bearer source refuses a request without credentials without reading
// its body: a body that never ends does not hold the request.
func TestBearerRefusesBeforeReadingTheBody(t *testing.T) {
	t.Parallel()
	src := source("s", "/s")
	src.Auth = &auth.Options{Kind: auth.KindAPIKey, Key: secret.New("k-1"), HeaderName: "X-API-Key"}
	ev := newEnv(t, nil, nil, src)
	req := newRequest("/inbox/s", "")
	req.Body = neverEnding{}
	req.ContentLength = -1
	requireAnswer(t, ev.send(req), 401, `{"error":"Missing X-API-Key header"}`)
}

// neverEnding is a body whose Read fails the test: it must not be read.
type neverEnding struct{}

func (neverEnding) Read([]byte) (int, error) {
	panic("the body of an unauthenticated request was read")
}
func (neverEnding) Close() error { return nil }
