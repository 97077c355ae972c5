package integration

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const adminHMACSecret = "integration-admin-hmac-secret"

// adminHMAC signs text with adminHMACSecret, as the documentation's
// openssl line does.
func adminHMAC(text string) string {
	m := hmac.New(sha256.New, []byte(adminHMACSecret))
	m.Write([]byte(text))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// signedRequest sends method target with body and the signature headers;
// stamp "" sends no timestamp.
func signedRequest(t *testing.T, p *process, method, target, body, stamp, sig string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, p.url(target), strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-Signature", sig)
	if stamp != "" {
		req.Header.Set("X-Timestamp", stamp)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// TestAdminHMACBindsTheRequestOnTheBinary: with an hmac admin.auth, a
// signature of the empty body, which every read, resend and discard
// carries, opens none of them; a signature of the timestamp, method,
// path with query and body opens the one request it signs, once. The
// transform test still takes a signature of its body, as the reference
// documents.
func TestAdminHMACBindsTheRequestOnTheBinary(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(destinationEnv(db.env(), "http://127.0.0.1:9"),
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "hmac",
		"QUEUEBOX_ADMIN_AUTH_SECRET", adminHMACSecret)
	p := startServing(t, "queuebox", env)

	for _, target := range []string{"/admin/overview", "/admin/messages?table=inbox", "/admin/replay"} {
		code, body := signedRequest(t, p, http.MethodGet, target, "", "", adminHMAC(""))
		require.Equal(t, http.StatusUnauthorized, code, "%s: %s", target, body)
	}
	code, body := signedRequest(t, p, http.MethodPost, "/admin/messages/00000000-0000-0000-0000-000000000001/discard", "", "", adminHMAC(""))
	require.Equal(t, http.StatusUnauthorized, code, body)

	stamp := strconv.FormatInt(time.Now().UnixMilli(), 10)
	target := "/admin/messages?table=inbox"
	sig := adminHMAC(stamp + ".GET." + target + ".")
	code, body = signedRequest(t, p, http.MethodGet, target, "", stamp, sig)
	require.Equal(t, http.StatusOK, code, body)
	code, body = signedRequest(t, p, http.MethodGet, target, "", stamp, sig)
	require.Equal(t, http.StatusUnauthorized, code, "the same signed request again is a replay: %s", body)
	code, body = signedRequest(t, p, http.MethodGet, "/admin/messages?table=outbox", "", stamp, sig)
	require.Equal(t, http.StatusUnauthorized, code, body)

	test := `{"expression":"$.a","payload":{"a":1}}`
	code, body = signedRequest(t, p, http.MethodPost, "/admin/transform/test", test, "", adminHMAC(test))
	require.Equal(t, http.StatusOK, code, body)
}
