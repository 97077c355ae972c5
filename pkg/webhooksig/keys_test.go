package webhooksig_test

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/webhooksig"
)

// key returns a whsec_ key of n bytes, each byte fill.
func key(n int, fill byte) string {
	return webhooksig.SecretPrefix + base64.StdEncoding.EncodeToString([]byte(strings.Repeat(string(rune(fill)), n)))
}

func TestParseSecret(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, secret string
		ok           bool
	}{
		{"24 bytes", key(24, 'a'), true},
		{"64 bytes", key(64, 'b'), true},
		{"23 bytes", key(23, 'c'), false},
		{"65 bytes", key(65, 'd'), false},
		{"no prefix", strings.TrimPrefix(key(32, 'e'), webhooksig.SecretPrefix), false},
		{"not base64", webhooksig.SecretPrefix + "not*base64!", false},
		{"empty", "", false},
		{"prefix only", webhooksig.SecretPrefix, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := webhooksig.ParseSecret(tc.secret)
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, webhooksig.ErrSecretFormat)
			if tc.secret != "" && tc.secret != webhooksig.SecretPrefix {
				require.NotContains(t, err.Error(), tc.secret, "the error never quotes the key")
			}
		})
	}
}

func TestNewKeysLimitsAndNamesThePosition(t *testing.T) {
	t.Parallel()
	prev := make([]string, webhooksig.MaxPreviousSecrets+1)
	for i := range prev {
		prev[i] = key(32, byte('a'+i))
	}
	_, err := webhooksig.NewKeys(key(32, 'z'), prev)
	require.ErrorContains(t, err, "previousSecrets: at most 10, got 11")

	_, err = webhooksig.NewKeys(key(32, 'z'), prev[:10])
	require.NoError(t, err)

	_, err = webhooksig.NewKeys(key(32, 'z'), []string{key(32, 'y'), "whsec_short"})
	require.ErrorContains(t, err, "previousSecrets[1]: must be whsec_")
	require.NotContains(t, err.Error(), "whsec_short")
}

// The vector of the official library's own test (libraries/go/webhook_test.go
// of github.com/standard-webhooks/standard-webhooks, TestSign).
func TestSignMatchesTheStandardVector(t *testing.T) {
	t.Parallel()
	k, err := webhooksig.NewKeys("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", nil)
	require.NoError(t, err)
	got := k.Sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	require.Equal(t, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", got)
}

// Every key of a rotation verifies with the official Go library, and a
// key that is not in the list does not.
func TestSignVerifiesWithTheOfficialLibrary(t *testing.T) {
	t.Parallel()
	current, previous, other := key(32, 'c'), key(48, 'p'), key(32, 'o')
	k, err := webhooksig.NewKeys(current, []string{previous})
	require.NoError(t, err)
	body := []byte(`{"id":"evt_1","type":"order.created"}`)
	ts := time.Now().Unix()
	sig := k.Sign("0190f7c2-row", ts, body)
	require.Len(t, strings.Fields(sig), 2, "one entry per key")

	h := http.Header{}
	h.Set(webhooksig.HeaderID, "0190f7c2-row")
	h.Set(webhooksig.HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(webhooksig.HeaderSignature, sig)
	for name, secret := range map[string]string{"current": current, "previous": previous} {
		wh, err := standardwebhooks.NewWebhook(secret)
		require.NoError(t, err)
		require.NoError(t, wh.Verify(body, h), name)
	}
	wh, err := standardwebhooks.NewWebhook(other)
	require.NoError(t, err)
	require.Error(t, wh.Verify(body, h))
	wh, err = standardwebhooks.NewWebhook(current)
	require.NoError(t, err)
	require.Error(t, wh.Verify(append(body, ' '), h), "the signature covers the exact body")
}

func TestMatch(t *testing.T) {
	t.Parallel()
	current, previous := key(32, 'c'), key(32, 'p')
	signer, err := webhooksig.NewKeys(previous, nil)
	require.NoError(t, err)
	verifier, err := webhooksig.NewKeys(current, []string{previous})
	require.NoError(t, err)
	body := []byte(`{}`)
	good := signer.Sign("msg_1", 1700000000, body)
	cases := []struct {
		name, id, ts, header string
		want                 bool
	}{
		{"previous key", "msg_1", "1700000000", good, true},
		{"among unknown versions", "msg_1", "1700000000", "v1a,AAAA v2,xyz " + good, true},
		{"other id", "msg_2", "1700000000", good, false},
		{"other timestamp", "msg_1", "1700000001", good, false},
		{"v0 tag", "msg_1", "1700000000", strings.Replace(good, "v1,", "v0,", 1), false},
		{"empty", "msg_1", "1700000000", "", false},
		{"not base64", "msg_1", "1700000000", "v1,@@@", false},
		{"truncated", "msg_1", "1700000000", good[:len(good)-4], false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, verifier.Match(tc.id, tc.ts, body, tc.header))
		})
	}
}
