package admin_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/transform"
)

const adminSecret = "admin-hmac-secret-0123456789"

// hmacAdmin serves every admin route with an hmac admin.auth block built
// as the wiring builds it; stamped sets timestampHeader X-Timestamp.
func hmacAdmin(t *testing.T, stamped bool) *echo.Echo {
	t.Helper()
	block := &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(adminSecret)}
	if stamped {
		block.TimestampHeader = "X-Timestamp"
	}
	v, err := auth.NewAdmin(block)
	require.NoError(t, err)
	opts := admin.Options{Enabled: true, Auth: v, AuthKind: auth.KindHMAC}
	wb, err := admin.NewWorkbench(opts, &fakeWorkbench{}, func(string) (string, []string) { return "", nil }, quiet())
	require.NoError(t, err)
	test, err := admin.NewTransformTest(opts, transform.JSONata)
	require.NoError(t, err)
	replay, err := admin.NewReplay(opts, &memReplayer{}, func(string) []string { return nil }, quiet())
	require.NoError(t, err)
	e := echo.New()
	admin.Mount(e, opts, admin.Routes{Replay: replay, TransformTest: test, Workbench: wb}, quiet())
	return e
}

func mac(text string) string {
	m := hmac.New(sha256.New, []byte(adminSecret))
	m.Write([]byte(text))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// bound signs method, target and body as the request-bound routes ask.
func bound(stamp, method, target, body string) string {
	return mac(stamp + "." + method + "." + target + "." + body)
}

func signedCall(e *echo.Echo, method, target, body, stamp, sig string) (int, string) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("X-Signature", sig)
	if stamp != "" {
		req.Header.Set("X-Timestamp", stamp)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec.Code, strings.TrimSpace(rec.Body.String())
}

// Every admin route but the two POSTs that carry their action in the
// body refuses a signature of the body alone: one signature of the empty
// body used to open every read, resend and discard of every row.
func TestAdminHMACBindsTheRequest(t *testing.T) {
	t.Parallel()
	e := hmacAdmin(t, false)
	stamp := strconv.FormatInt(time.Now().UnixMilli(), 10)
	discard := "/admin/messages/" + rowID + "/discard"
	tests := []struct {
		name, method, target, body, stamp, sig string
		want                                   int
	}{
		{"body-only signature of a read", http.MethodGet, "/admin/overview", "", "", mac(""), http.StatusUnauthorized},
		{"body-only signature with a timestamp", http.MethodGet, "/admin/overview", "", stamp, mac(stamp + "."), http.StatusUnauthorized},
		{"body-only signature of a discard", http.MethodPost, discard, "", "", mac(""), http.StatusUnauthorized},
		{"bound read", http.MethodGet, "/admin/messages?table=inbox", "", stamp,
			bound(stamp, "GET", "/admin/messages?table=inbox", ""), http.StatusOK},
		{"bound signature of another query", http.MethodGet, "/admin/messages?table=outbox", "", stamp,
			bound(stamp, "GET", "/admin/messages?table=inbox", ""), http.StatusUnauthorized},
		{"bound signature of another method", http.MethodPost, discard, "", stamp,
			bound(stamp, "GET", discard, ""), http.StatusUnauthorized},
		{"bound discard", http.MethodPost, discard, "", stamp, bound(stamp, "POST", discard, ""), http.StatusOK},
		{"bound signature without its timestamp", http.MethodGet, "/admin/whoami", "", "",
			bound(stamp, "GET", "/admin/whoami", ""), http.StatusUnauthorized},
		{"old timestamp", http.MethodGet, "/admin/whoami", "", "1000", bound("1000", "GET", "/admin/whoami", ""), http.StatusUnauthorized},
		{"transform test signs its body", http.MethodPost, "/admin/transform/test", `{"expression":"1","payload":{}}`, "",
			mac(`{"expression":"1","payload":{}}`), http.StatusOK},
	}
	for _, tt := range tests {
		code, body := signedCall(e, tt.method, tt.target, tt.body, tt.stamp, tt.sig)
		require.Equal(t, tt.want, code, "%s: %s", tt.name, body)
	}
}

// A request-bound signature passes once: the same request sent again
// within the tolerance is a replay.
func TestAdminHMACRefusesABoundSignatureTwice(t *testing.T) {
	t.Parallel()
	e := hmacAdmin(t, false)
	stamp := strconv.FormatInt(time.Now().UnixMilli(), 10)
	sig := bound(stamp, "GET", "/admin/whoami", "")
	code, body := signedCall(e, http.MethodGet, "/admin/whoami", "", stamp, sig)
	require.Equal(t, http.StatusOK, code, body)
	code, body = signedCall(e, http.MethodGet, "/admin/whoami", "", stamp, sig)
	require.Equal(t, http.StatusUnauthorized, code)
	require.Contains(t, body, "Signature already used")
}

// With timestampHeader set, the two body-signed POSTs sign
// "<timestamp>.<body>" and refuse the same signature twice in the
// window; without it they sign the body alone, as a source does.
func TestAdminHMACBodySignedRoutesRefuseAReplayInTheWindow(t *testing.T) {
	t.Parallel()
	e := hmacAdmin(t, true)
	stamp := strconv.FormatInt(time.Now().UnixMilli(), 10)
	body := `{"ids":["` + rowID + `"]}`
	sig := mac(stamp + "." + body)
	code, answer := signedCall(e, http.MethodPost, "/admin/replay", body, stamp, sig)
	require.Equal(t, http.StatusOK, code, answer)
	code, answer = signedCall(e, http.MethodPost, "/admin/replay", body, stamp, sig)
	require.Equal(t, http.StatusUnauthorized, code)
	require.Contains(t, answer, "Signature already used")

	plain := hmacAdmin(t, false)
	for range 2 {
		code, answer = signedCall(plain, http.MethodPost, "/admin/replay", body, "", mac(body))
		require.Equal(t, http.StatusOK, code, answer)
	}
}
