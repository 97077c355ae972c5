package auth_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/secret"
)

var now = time.UnixMilli(1_767_000_000_000)

const (
	token  = "tok-0123456789"
	apiKey = "key-abcdef"
	shared = "shh-secret"
	body   = `{"id":"evt_1"}`
)

func headers(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func sign(newHash func() hash.Hash, payload string) string {
	m := hmac.New(newHash, []byte(shared))
	m.Write([]byte(payload))
	return hex.EncodeToString(m.Sum(nil))
}

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

func str(s string) *string { return &s }

type verifyCase struct {
	name    string
	h       http.Header
	body    string
	wantErr string // empty: the request passes
}

func runCases(t *testing.T, cfg *auth.Options, cases []verifyCase) {
	t.Helper()
	v, err := auth.New(cfg)
	require.NoError(t, err)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := tc.body
			if b == "" {
				b = body
			}
			err := v.Verify(tc.h, []byte(b), now)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
			require.True(t, auth.IsAuthError(err))
			for _, cred := range []string{token, apiKey, shared} {
				require.NotContains(t, err.Error(), cred, "an error never holds a credential")
			}
		})
	}
}

func TestNoAuthAcceptsEverything(t *testing.T) {
	t.Parallel()
	v, err := auth.New(nil)
	require.NoError(t, err)
	require.NoError(t, v.Verify(http.Header{}, nil, now))
	require.Empty(t, v.CredentialHeaders())
}

func TestBearer(t *testing.T) {
	t.Parallel()
	runCases(t, &auth.Options{Kind: auth.KindBearer, Token: secret.New(token)}, []verifyCase{
		{name: "valid", h: headers("Authorization", "Bearer "+token)},
		{name: "scheme in lower case", h: headers("Authorization", "bearer "+token)},
		{name: "scheme in upper case", h: headers("Authorization", "BEARER "+token)},
		{name: "missing header", h: headers(), wantErr: "Missing Authorization header"},
		{name: "blank header", h: headers("Authorization", "  "), wantErr: "Missing Authorization header"},
		{name: "no scheme", h: headers("Authorization", token), wantErr: "Authorization header does not use the Bearer scheme"},
		{name: "basic scheme", h: headers("Authorization", "Basic "+token), wantErr: "Authorization header does not use the Bearer scheme"},
		{name: "wrong token", h: headers("Authorization", "Bearer nope"), wantErr: "Invalid bearer token"},
		{name: "token prefix", h: headers("Authorization", "Bearer "+token[:5]), wantErr: "Invalid bearer token"},
		{name: "token in other case", h: headers("Authorization", "Bearer "+strings.ToUpper(token)), wantErr: "Invalid bearer token"},
		{name: "empty token", h: headers("Authorization", "Bearer "), wantErr: "Authorization header does not use the Bearer scheme"},
	})
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	runCases(t, &auth.Options{Kind: auth.KindAPIKey, Key: secret.New(apiKey)}, []verifyCase{
		{name: "default header", h: headers("X-API-Key", apiKey)},
		{name: "header in other case", h: headers("x-api-key", apiKey)},
		{name: "missing", h: headers(), wantErr: "Missing X-API-Key header"},
		{name: "wrong key", h: headers("X-API-Key", "nope"), wantErr: "Invalid API key"},
		{name: "key in Authorization", h: headers("Authorization", apiKey), wantErr: "Missing X-API-Key header"},
	})
	runCases(t, &auth.Options{Kind: auth.KindAPIKey, Key: secret.New(apiKey), HeaderName: "X-Partner-Key"}, []verifyCase{
		{name: "custom header", h: headers("X-Partner-Key", apiKey)},
		{name: "default header is not read", h: headers("X-API-Key", apiKey), wantErr: "Missing X-Partner-Key header"},
	})
}

func TestHMACWithoutTimestamp(t *testing.T) {
	t.Parallel()
	cfg := &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared), HeaderName: "X-Hub-Signature-256"}
	good := "sha256=" + sign(sha256.New, body)
	runCases(t, cfg, []verifyCase{
		{name: "valid, default prefix", h: headers("X-Hub-Signature-256", good)},
		{name: "missing", h: headers(), wantErr: "Missing X-Hub-Signature-256 header"},
		{name: "other body", h: headers("X-Hub-Signature-256", good), body: `{"id":"evt_2"}`, wantErr: "Invalid signature"},
		{name: "no prefix", h: headers("X-Hub-Signature-256", sign(sha256.New, body)), wantErr: "Invalid signature"},
		{name: "upper-case hex", h: headers("X-Hub-Signature-256", "sha256="+strings.ToUpper(sign(sha256.New, body))), wantErr: "Invalid signature"},
		{name: "other secret", h: headers("X-Hub-Signature-256", "sha256="+hex.EncodeToString(hmac.New(sha256.New, []byte("x")).Sum(nil))), wantErr: "Invalid signature"},
	})
}

func TestHMACPrefixAndAlgorithm(t *testing.T) {
	t.Parallel()
	runCases(t, &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared), SignaturePrefix: str("")}, []verifyCase{
		{name: "empty prefix", h: headers("X-Signature", sign(sha256.New, body))},
		{name: "default prefix is not expected", h: headers("X-Signature", "sha256="+sign(sha256.New, body)), wantErr: "Invalid signature"},
	})
	runCases(t, &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared), Algorithm: "HmacSHA512", SignaturePrefix: str("sha512=")}, []verifyCase{
		{name: "SHA512", h: headers("X-Signature", "sha512="+sign(sha512.New, body))},
		{name: "SHA256 on a SHA512 source", h: headers("X-Signature", "sha512="+sign(sha256.New, body)), wantErr: "Invalid signature"},
	})
}

func TestHMACTimestampDotBody(t *testing.T) {
	t.Parallel()
	cfg := &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared), TimestampHeader: "X-Timestamp", TimestampTolerance: 300000}
	signed := func(at time.Time) http.Header {
		return headers("X-Timestamp", ms(at), "X-Signature", "sha256="+sign(sha256.New, ms(at)+"."+body))
	}
	old := now.Add(-10 * time.Minute)
	runCases(t, cfg, []verifyCase{
		{name: "fresh", h: signed(now)},
		{name: "at the tolerance in the past", h: signed(now.Add(-5 * time.Minute))},
		{name: "at the tolerance in the future", h: signed(now.Add(5 * time.Minute))},
		{name: "old timestamp", h: signed(old), wantErr: "Timestamp outside the tolerance of 300000 ms"},
		{name: "one ms too old", h: signed(now.Add(-5*time.Minute - time.Millisecond)), wantErr: "Timestamp outside the tolerance of 300000 ms"},
		{name: "future timestamp", h: signed(now.Add(6 * time.Minute)), wantErr: "Timestamp outside the tolerance of 300000 ms"},
		{name: "fresh timestamp, old signature", h: headers("X-Timestamp", ms(now), "X-Signature", signed(old).Get("X-Signature")), wantErr: "Invalid signature"},
		{name: "body-only signature", h: headers("X-Timestamp", ms(now), "X-Signature", "sha256="+sign(sha256.New, body)), wantErr: "Invalid signature"},
		{name: "missing timestamp", h: headers("X-Signature", signed(now).Get("X-Signature")), wantErr: "Missing X-Timestamp header"},
		{name: "seconds are not a format", h: headers("X-Timestamp", "17670000.5", "X-Signature", "sha256=00"), wantErr: "Invalid timestamp in X-Timestamp header: not Unix milliseconds"},
		{name: "missing signature", h: headers("X-Timestamp", ms(now)), wantErr: "Missing X-Signature header"},
	})
}

func TestHMACBodyFormatWithTimestampChecksOnlyAge(t *testing.T) {
	t.Parallel()
	cfg := &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared), TimestampHeader: "X-Timestamp",
		TimestampTolerance: 1000, SignaturePayloadFormat: "body"}
	sig := "sha256=" + sign(sha256.New, body)
	runCases(t, cfg, []verifyCase{
		{name: "fresh", h: headers("X-Timestamp", ms(now), "X-Signature", sig)},
		{name: "replay with a new timestamp passes", h: headers("X-Timestamp", ms(now.Add(500*time.Millisecond)), "X-Signature", sig)},
		{name: "old", h: headers("X-Timestamp", ms(now.Add(-2*time.Second)), "X-Signature", sig), wantErr: "Timestamp outside the tolerance of 1000 ms"},
		{name: "timestamp-dot-body signature", h: headers("X-Timestamp", ms(now), "X-Signature", "sha256="+sign(sha256.New, ms(now)+"."+body)), wantErr: "Invalid signature"},
	})
}

func TestCredentialHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg  *auth.Options
		want []string
	}{
		{&auth.Options{Kind: auth.KindBearer, Token: secret.New(token)}, []string{"Authorization"}},
		{&auth.Options{Kind: auth.KindAPIKey, Key: secret.New(apiKey)}, []string{"X-API-Key"}},
		{&auth.Options{Kind: auth.KindAPIKey, Key: secret.New(apiKey), HeaderName: "x-partner-key"}, []string{"x-partner-key"}},
		{&auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared), TimestampHeader: "X-Timestamp"}, []string{"X-Signature"}},
	}
	for _, tt := range tests {
		v, err := auth.New(tt.cfg)
		require.NoError(t, err)
		require.Equal(t, tt.want, v.CredentialHeaders())
	}
}

func TestNewRefusesBrokenBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  *auth.Options
		want string
	}{
		{"unknown kind", &auth.Options{Kind: "oauth2"}, `unknown kind "oauth2"`},
		{"no kind", &auth.Options{Token: secret.New(token)}, `unknown kind ""`},
		{"bearer without token", &auth.Options{Kind: auth.KindBearer}, "bearer needs a token"},
		{"api-key without key", &auth.Options{Kind: auth.KindAPIKey}, "api-key needs a key"},
		{"hmac without secret", &auth.Options{Kind: auth.KindHMAC}, "hmac needs a secret"},
		{"hmac with MD5", &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared), Algorithm: "HmacMD5"}, "HmacMD5"},
		{"timestamp format without header", &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared),
			SignaturePayloadFormat: auth.PayloadTimestampDotBody}, "needs a timestampHeader"},
		{"unknown format", &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared),
			SignaturePayloadFormat: "header"}, `"header"`},
	}
	for _, tt := range tests {
		_, err := auth.New(tt.cfg)
		require.ErrorContains(t, err, tt.want, tt.name)
	}
}

func TestKindInAnyLetterCase(t *testing.T) {
	t.Parallel()
	v, err := auth.New(&auth.Options{Kind: " Bearer ", Token: secret.New(token)})
	require.NoError(t, err)
	require.NoError(t, v.Verify(headers("Authorization", "Bearer "+token), nil, now))
}
