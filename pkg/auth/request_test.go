package auth_test

import (
	"crypto/sha256"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/secret"
)

// VerifyRequest of hmac signs "<ts>.<METHOD>.<path?query>.<body>" with
// the timestamp in timestampHeader, X-Timestamp by default; the request
// target is taken as sent, escapes and query included.
func TestVerifyRequestBindsMethodTargetBodyAndTime(t *testing.T) {
	t.Parallel()
	target := "/admin/messages/a%2Fb?table=inbox&state=dead"
	good := "sha256=" + sign(sha256.New, ms(now)+".GET."+target+"."+body)
	tests := []struct {
		name, method, target, stamp, sig, wantErr string
	}{
		{"bound", "GET", target, ms(now), good, ""},
		{"other method", "POST", target, ms(now), good, "Invalid signature: this route signs <timestamp>.<METHOD>.<path?query>.<body>"},
		{"other query", "GET", "/admin/messages/a%2Fb?table=outbox&state=dead", ms(now), good, "Invalid signature: this route signs <timestamp>.<METHOD>.<path?query>.<body>"},
		{"unescaped path", "GET", "/admin/messages/a/b?table=inbox&state=dead", ms(now), good, "Invalid signature: this route signs <timestamp>.<METHOD>.<path?query>.<body>"},
		{"body-only signature", "GET", target, ms(now), "sha256=" + sign(sha256.New, body), "Invalid signature: this route signs <timestamp>.<METHOD>.<path?query>.<body>"},
		{"no timestamp", "GET", target, "", good, "Missing X-Timestamp header"},
		{"old timestamp", "GET", target, ms(now.Add(-6 * time.Minute)), good, "Timestamp outside the tolerance of 300000 ms"},
	}
	v, err := auth.New(&auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared)})
	require.NoError(t, err)
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.target, strings.NewReader(body))
		r.Header.Set("X-Signature", tt.sig)
		if tt.stamp != "" {
			r.Header.Set("X-Timestamp", tt.stamp)
		}
		err := v.VerifyRequest(r, []byte(body), now)
		if tt.wantErr == "" {
			require.NoError(t, err, tt.name)
			continue
		}
		require.EqualError(t, err, tt.wantErr, tt.name)
	}
}

// An admin verifier passes a timestamped signature once; a source's
// verifier leaves repeats to the inbox's duplicate check, and a bearer
// token is the same on every request.
func TestNewAdminRefusesASignatureSeenTwice(t *testing.T) {
	t.Parallel()
	block := &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared), TimestampHeader: "X-Timestamp"}
	h := headers("X-Timestamp", ms(now), "X-Signature", "sha256="+sign(sha256.New, ms(now)+"."+body))
	adminV, err := auth.NewAdmin(block)
	require.NoError(t, err)
	require.NoError(t, adminV.Verify(h, []byte(body), now))
	require.EqualError(t, adminV.Verify(h, []byte(body), now.Add(time.Minute)), "Signature already used: sign each request with a new timestamp")
	require.EqualError(t, adminV.Verify(h, []byte(body), now.Add(6*time.Minute)), "Timestamp outside the tolerance of 300000 ms")

	source, err := auth.New(block)
	require.NoError(t, err)
	require.NoError(t, source.Verify(h, []byte(body), now))
	require.NoError(t, source.Verify(h, []byte(body), now))

	bearer, err := auth.NewAdmin(&auth.Options{Kind: auth.KindBearer, Token: secret.New(token)})
	require.NoError(t, err)
	for range 2 {
		require.NoError(t, bearer.Verify(headers("Authorization", "Bearer "+token), nil, now))
	}
}
