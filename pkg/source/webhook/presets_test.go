package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/source/webhook"
	"github.com/alternayte/queuebox/pkg/webhooksig"
)

// presetSource returns an HTTP source with a preset auth block, with the
// attribute fields that the loader fills for that preset.
func presetSource(name, kind, key string) *webhook.Source {
	src := &webhook.Source{Path: "/" + name, Receive: ingest.Source{Name: name, Consumption: ingest.ConsumptionPush},
		Auth: &auth.Options{Kind: kind, Secret: secret.New(key), ToleranceSeconds: 300}}
	s := &src.Receive
	switch kind {
	case auth.KindStripe:
		s.IdempotencyKeyPath, s.EventTypePath = "$.id", "$.type"
	case auth.KindSlack:
		s.IdempotencyKeyPath, s.EventTypePath = "$.event_id", "$.event.type"
	case auth.KindGitHub:
		s.IdempotencyKeyHeaders, s.EventTypeHeader = []string{"x-github-delivery"}, "x-github-event"
	case auth.KindShopify:
		s.IdempotencyKeyHeaders, s.EventTypeHeader = []string{"x-shopify-webhook-id", "x-shopify-event-id"}, "x-shopify-topic"
	case auth.KindStandardWebhooks:
		s.IdempotencyKeyHeaders, s.EventTypePath = []string{"webhook-id"}, "$.type"
	}
	return src
}

func TestPresetsStoreOnceWithTheProviderAttributes(t *testing.T) {
	t.Parallel()
	const whsec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	ev := newEnv(t, nil, nil,
		presetSource("stripe", auth.KindStripe, "sk"),
		presetSource("github", auth.KindGitHub, "gh"),
		presetSource("shopify", auth.KindShopify, "sh"),
		presetSource("slack", auth.KindSlack, "sl"),
		presetSource("std", auth.KindStandardWebhooks, whsec))
	ts := strconv.FormatInt(t0.Unix(), 10)
	keys, err := webhooksig.NewKeys(whsec, nil)
	require.NoError(t, err)

	stripeBody := `{"id":"evt_1","type":"invoice.paid"}`
	githubBody := `{"action":"opened"}`
	shopifyBody := `{"id":1}`
	slackBody := `{"event_id":"Ev1","event":{"type":"app_mention"}}`
	stdBody := `{"type":"order.created","data":{}}`
	requests := []struct {
		path, body string
		header     []string
		key, typ   string
	}{
		{"/inbox/stripe", stripeBody, []string{"Stripe-Signature", "t=" + ts + ",v1=" + hexMAC("sk", ts+"."+stripeBody)}, "evt_1", "invoice.paid"},
		{"/inbox/github", githubBody, []string{"X-Hub-Signature-256", "sha256=" + hexMAC("gh", githubBody),
			"X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958", "X-GitHub-Event", "issues"}, "72d3162e-cc78-11e3-81ab-4c9367dc0958", "issues"},
		{"/inbox/shopify", shopifyBody, []string{"X-Shopify-Hmac-Sha256", b64MAC("sh", shopifyBody),
			"X-Shopify-Event-Id", "ev-9", "X-Shopify-Topic", "orders/create"}, "ev-9", "orders/create"},
		{"/inbox/slack", slackBody, []string{"X-Slack-Request-Timestamp", ts, "X-Slack-Signature", "v0=" + hexMAC("sl", "v0:"+ts+":"+slackBody)}, "Ev1", "app_mention"},
		{"/inbox/std", stdBody, []string{"webhook-id", "msg_1", "webhook-timestamp", ts, "webhook-signature", keys.Sign("msg_1", t0.Unix(), []byte(stdBody))}, "msg_1", "order.created"},
	}
	for _, r := range requests {
		rec := ev.post(r.path, r.body, r.header...)
		require.Equal(t, 202, rec.Code, "%s: %s", r.path, rec.Body.String())
		requireAnswer(t, ev.post(r.path, r.body, r.header...), 200, `{"status":"duplicate"}`)
		row := ev.mem.Row(t, r.key)
		require.NotNil(t, row.EventType, r.path)
		require.Equal(t, r.typ, *row.EventType, r.path)
		for name := range row.Headers {
			for _, omitted := range []string{"stripe-signature", "x-hub-signature-256", "x-shopify-hmac-sha256", "x-slack-signature", "webhook-signature"} {
				require.NotEqual(t, omitted, name, "the signature header is not stored")
			}
		}
	}
	require.Len(t, ev.mem.Rows(), len(requests))
}

func TestPresetFailuresStoreNothing(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, presetSource("stripe", auth.KindStripe, "sk"), presetSource("github", auth.KindGitHub, "gh"))
	ts := strconv.FormatInt(t0.Unix(), 10)
	old := strconv.FormatInt(t0.Unix()-301, 10)
	body := `{"id":"evt_1","type":"invoice.paid"}`
	requireAnswer(t, ev.post("/inbox/stripe", body), 401, `{"error":"Missing Stripe-Signature header"}`)
	requireAnswer(t, ev.post("/inbox/stripe", body, "Stripe-Signature", "t="+ts+",v1="+hexMAC("other", ts+"."+body)), 401, `{"error":"Invalid signature"}`)
	requireAnswer(t, ev.post("/inbox/stripe", body, "Stripe-Signature", "t="+old+",v1="+hexMAC("sk", old+"."+body)), 401,
		`{"error":"Timestamp outside the tolerance of 300 s"}`)
	requireAnswer(t, ev.post("/inbox/github", `{}`, "X-Hub-Signature-256", "sha256="+hexMAC("gh", `{}`)), 400,
		`{"error":"Idempotency key not found in the x-github-delivery header"}`)
	require.Empty(t, ev.mem.Rows())
}

// Slack's url_verification request is answered with its challenge and
// stored nowhere; a forged one gets 401.
func TestSlackURLVerification(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, presetSource("slack", auth.KindSlack, "sl"))
	ts := strconv.FormatInt(t0.Unix(), 10)
	body := `{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`
	requireAnswer(t, ev.post("/inbox/slack", body, "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", "v0="+hexMAC("sl", "v0:"+ts+":"+body)),
		200, `{"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}`)
	requireAnswer(t, ev.post("/inbox/slack", body, "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", "v0="+hexMAC("x", "v0:"+ts+":"+body)),
		401, `{"error":"Invalid signature"}`)
	require.Empty(t, ev.mem.Rows())
}

func hexMAC(key, payload string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(payload))
	return hex.EncodeToString(m.Sum(nil))
}

func b64MAC(key, payload string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(payload))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}
