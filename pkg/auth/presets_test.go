package auth_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/webhooksig"
)

// presetCase is one request to a preset at time at.
type presetCase struct {
	name    string
	h       map[string][]string
	body    string
	at      time.Time
	wantErr string
}

func preset(kind, current string, previous ...string) *auth.Options {
	a := &auth.Options{Kind: kind, Secret: secret.New(current)}
	for _, p := range previous {
		a.PreviousSecrets = append(a.PreviousSecrets, secret.New(p))
	}
	return a
}

func runPreset(t *testing.T, cfg *auth.Options, cases []presetCase) {
	t.Helper()
	v, err := auth.New(cfg)
	require.NoError(t, err)
	require.True(t, v.NeedsBody())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			at := tc.at
			if at.IsZero() {
				at = now
			}
			err := v.Verify(tc.h, []byte(tc.body), at)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
			require.True(t, auth.IsAuthError(err))
			require.NotContains(t, err.Error(), cfg.Secret.Reveal())
		})
	}
}

func hexMAC(key string, parts ...string) string {
	m := hmac.New(sha256.New, []byte(key))
	for _, p := range parts {
		m.Write([]byte(p))
	}
	return hex.EncodeToString(m.Sum(nil))
}

func hdr(kv ...string) map[string][]string { return headers(kv...) }

// GitHub publishes a test vector on
// https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
// ("Testing the webhook payload validation").
func TestGitHubPreset(t *testing.T) {
	t.Parallel()
	const secretText, payload = "It's a Secret to Everybody", "Hello, World!"
	const published = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	runPreset(t, preset(auth.KindGitHub, "new-secret", secretText), []presetCase{
		{name: "published example, as a previous secret", h: hdr("X-Hub-Signature-256", published), body: payload},
		{name: "current secret", h: hdr("X-Hub-Signature-256", "sha256="+hexMAC("new-secret", payload)), body: payload},
		{name: "forged body", h: hdr("X-Hub-Signature-256", published), body: payload + " ", wantErr: "Invalid signature"},
		{name: "missing", h: hdr(), body: payload, wantErr: "Missing X-Hub-Signature-256 header"},
		{name: "sha1 prefix", h: hdr("X-Hub-Signature-256", "sha1="+published[7:]), body: payload,
			wantErr: "Invalid X-Hub-Signature-256 header: it does not start with sha256="},
		{name: "upper-case hex", h: hdr("X-Hub-Signature-256", "sha256="+"757107EA0EB2509FC211221CCE984B8A37570B6D7586C22C46F4379C8B043E17"), body: payload},
		{name: "repeated", h: hdr("X-Hub-Signature-256", published, "X-Hub-Signature-256", published), body: payload,
			wantErr: "Repeated X-Hub-Signature-256 header"},
	})
}

// Slack publishes a worked example on
// https://api.slack.com/authentication/verifying-requests-from-slack
// (the signing secret, timestamp, body and signature below).
func TestSlackPreset(t *testing.T) {
	t.Parallel()
	const secretText = "8f742231b10e8888abcd99yyyzzz85a5"
	const body = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
	const sig = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"
	sent := time.Unix(1531420618, 0)
	ok := hdr("X-Slack-Request-Timestamp", "1531420618", "X-Slack-Signature", sig)
	runPreset(t, preset(auth.KindSlack, secretText), []presetCase{
		{name: "published example", h: ok, body: body, at: sent.Add(10 * time.Second)},
		{name: "expired", h: ok, body: body, at: sent.Add(301 * time.Second), wantErr: "Timestamp outside the tolerance of 300 s"},
		{name: "future-dated", h: ok, body: body, at: sent.Add(-301 * time.Second), wantErr: "Timestamp outside the tolerance of 300 s"},
		{name: "timestamp moved", h: hdr("X-Slack-Request-Timestamp", "1531420619", "X-Slack-Signature", sig), body: body, at: sent,
			wantErr: "Invalid signature"},
		{name: "no timestamp", h: hdr("X-Slack-Signature", sig), body: body, at: sent, wantErr: "Missing X-Slack-Request-Timestamp header"},
		{name: "timestamp in ms", h: hdr("X-Slack-Request-Timestamp", "1531420618000", "X-Slack-Signature", sig), body: body, at: sent,
			wantErr: "Timestamp outside the tolerance of 300 s"},
		{name: "not a number", h: hdr("X-Slack-Request-Timestamp", "soon", "X-Slack-Signature", sig), body: body, at: sent,
			wantErr: "Invalid timestamp in X-Slack-Request-Timestamp header: not Unix seconds"},
		{name: "repeated signature", h: hdr("X-Slack-Request-Timestamp", "1531420618", "X-Slack-Signature", sig, "X-Slack-Signature", "v0=00"),
			body: body, at: sent, wantErr: "Repeated X-Slack-Signature header"},
		{name: "repeated timestamp", h: hdr("X-Slack-Request-Timestamp", "1531420618", "X-Slack-Request-Timestamp", "1", "X-Slack-Signature", sig),
			body: body, at: sent, wantErr: "Repeated X-Slack-Request-Timestamp header"},
	})
}

// Stripe documents the header (t=...,v1=...,v0=...) and the signed payload
// "<t>.<body>" on https://docs.stripe.com/webhooks#verify-manually but
// publishes no secret to check a sample against, so the cases sign their
// own, the way the page describes.
func TestStripePreset(t *testing.T) {
	t.Parallel()
	const current, previous = "whsec_current_test", "whsec_previous_test"
	body := `{"id":"evt_1","type":"invoice.paid"}`
	ts := strconv.FormatInt(now.Unix(), 10)
	v1 := func(key string) string { return hexMAC(key, ts, ".", body) }
	runPreset(t, preset(auth.KindStripe, current, previous), []presetCase{
		{name: "current", h: hdr("Stripe-Signature", "t="+ts+",v1="+v1(current)), body: body},
		{name: "previous only", h: hdr("Stripe-Signature", "t="+ts+",v1="+v1(previous)), body: body},
		{name: "any v1 matches (rotation, Stripe signs with both)", h: hdr("Stripe-Signature", "t="+ts+",v1="+v1("other")+",v1="+v1(current)+",v0="+v1("x")), body: body},
		{name: "v0 alone is ignored", h: hdr("Stripe-Signature", "t="+ts+",v0="+v1(current)), body: body,
			wantErr: "No v1 signature in the Stripe-Signature header"},
		{name: "forged", h: hdr("Stripe-Signature", "t="+ts+",v1="+v1("attacker")), body: body, wantErr: "Invalid signature"},
		{name: "body changed", h: hdr("Stripe-Signature", "t="+ts+",v1="+v1(current)), body: body + "\n", wantErr: "Invalid signature"},
		{name: "expired", h: hdr("Stripe-Signature", "t="+ts+",v1="+v1(current)), body: body, at: now.Add(6 * time.Minute),
			wantErr: "Timestamp outside the tolerance of 300 s"},
		{name: "future-dated", h: hdr("Stripe-Signature", "t="+ts+",v1="+v1(current)), body: body, at: now.Add(-6 * time.Minute),
			wantErr: "Timestamp outside the tolerance of 300 s"},
		{name: "no timestamp", h: hdr("Stripe-Signature", "v1="+v1(current)), body: body, wantErr: "Invalid Stripe-Signature header: no timestamp"},
		{name: "two timestamps", h: hdr("Stripe-Signature", "t="+ts+",t=1,v1="+v1(current)), body: body,
			wantErr: "Invalid Stripe-Signature header: more than one timestamp"},
		{name: "repeated header", h: hdr("Stripe-Signature", "t="+ts+",v1="+v1(current), "Stripe-Signature", "t=1,v1=00"), body: body,
			wantErr: "Repeated Stripe-Signature header"},
		{name: "missing", h: hdr(), body: body, wantErr: "Missing Stripe-Signature header"},
	})
}

// Shopify documents the header (the base64 HMAC-SHA256 of the raw body
// with the app's client secret) on
// https://shopify.dev/docs/apps/build/webhooks/subscribe/https#step-5-verify-the-webhook
// without a published secret, so the cases sign their own.
func TestShopifyPreset(t *testing.T) {
	t.Parallel()
	const current = "shpss_current"
	body := `{"id":820982911946154508,"email":"jon@example.com"}`
	b64 := func(key string) string {
		raw, _ := hex.DecodeString(hexMAC(key, body))
		return base64.StdEncoding.EncodeToString(raw)
	}
	runPreset(t, preset(auth.KindShopify, current, "shpss_old"), []presetCase{
		{name: "current", h: hdr("X-Shopify-Hmac-Sha256", b64(current)), body: body},
		{name: "previous", h: hdr("X-Shopify-Hmac-Sha256", b64("shpss_old")), body: body},
		{name: "forged", h: hdr("X-Shopify-Hmac-Sha256", b64("x")), body: body, wantErr: "Invalid signature"},
		{name: "hex instead of base64", h: hdr("X-Shopify-Hmac-Sha256", hexMAC(current, body)), body: body,
			wantErr: "Invalid X-Shopify-Hmac-Sha256 header: not the base64 of an HMAC-SHA256"},
		{name: "repeated", h: hdr("X-Shopify-Hmac-Sha256", b64(current), "X-Shopify-Hmac-Sha256", b64(current)), body: body,
			wantErr: "Repeated X-Shopify-Hmac-Sha256 header"},
	})
}

// The Standard Webhooks vector comes from the official library's test
// (libraries/go/webhook_test.go of
// https://github.com/standard-webhooks/standard-webhooks).
func TestStandardWebhooksPreset(t *testing.T) {
	t.Parallel()
	const key = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	const body = `{"test": 2432232314}`
	sent := time.Unix(1614265330, 0)
	good := hdr("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek", "webhook-timestamp", "1614265330",
		"webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	other := "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef01234567"))
	with := func(name, value string) map[string][]string {
		h := hdr()
		for k, v := range good {
			h[k] = v
		}
		h[name] = []string{value}
		return h
	}
	runPreset(t, preset(auth.KindStandardWebhooks, other, key), []presetCase{
		{name: "published vector, previous key", h: good, body: body, at: sent},
		{name: "several entries", h: with("Webhook-Signature", "v1a,xyz v1,AAAA v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="), body: body, at: sent},
		{name: "expired", h: good, body: body, at: sent.Add(301 * time.Second), wantErr: "Timestamp outside the tolerance of 300 s"},
		{name: "future-dated", h: good, body: body, at: sent.Add(-301 * time.Second), wantErr: "Timestamp outside the tolerance of 300 s"},
		{name: "other id", h: with("Webhook-Id", "msg_other"), body: body, at: sent, wantErr: "Invalid signature"},
		{name: "missing id", h: with("Webhook-Id", ""), body: body, at: sent, wantErr: "Missing webhook-id header"},
		{name: "repeated signature", h: func() map[string][]string {
			h := with("Webhook-Signature", "v1,AAAA")
			h["Webhook-Signature"] = append(h["Webhook-Signature"], "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
			return h
		}(), body: body, at: sent, wantErr: "Repeated webhook-signature header"},
	})
}

func TestPresetToleranceSeconds(t *testing.T) {
	t.Parallel()
	cfg := preset(auth.KindStripe, "k")
	cfg.ToleranceSeconds = 10
	ts := strconv.FormatInt(now.Unix(), 10)
	h := hdr("Stripe-Signature", "t="+ts+",v1="+hexMAC("k", ts, ".", "{}"))
	runPreset(t, cfg, []presetCase{
		{name: "inside", h: h, body: "{}", at: now.Add(10 * time.Second)},
		{name: "outside", h: h, body: "{}", at: now.Add(11 * time.Second), wantErr: "Timestamp outside the tolerance of 10 s"},
	})
}

func TestPresetConstruction(t *testing.T) {
	t.Parallel()
	_, err := auth.New(&auth.Options{Kind: auth.KindStandardWebhooks, Secret: secret.New("plain")})
	require.ErrorIs(t, err, webhooksig.ErrSecretFormat)
	_, err = auth.New(&auth.Options{Kind: auth.KindGitHub})
	require.ErrorContains(t, err, "github needs a secret")
	v, err := auth.New(preset(auth.KindStripe, "k"))
	require.NoError(t, err)
	require.Equal(t, []string{"Stripe-Signature"}, v.CredentialHeaders())
}

func TestSlackChallenge(t *testing.T) {
	t.Parallel()
	slack, err := auth.New(preset(auth.KindSlack, "k"))
	require.NoError(t, err)
	c, ok := slack.Challenge([]byte(`{"token":"t","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`))
	require.True(t, ok)
	require.Equal(t, "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", c)
	_, ok = slack.Challenge([]byte(`{"type":"event_callback","event_id":"Ev1"}`))
	require.False(t, ok)
	stripe, err := auth.New(preset(auth.KindStripe, "k"))
	require.NoError(t, err)
	_, ok = stripe.Challenge([]byte(`{"type":"url_verification","challenge":"x"}`))
	require.False(t, ok, "only slack answers a challenge")
}
