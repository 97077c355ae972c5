package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// whsec is a valid Standard Webhooks key (24 bytes); whsecShort decodes to
// 8 bytes.
const (
	whsec      = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	whsecShort = "whsec_dG9vc2hvcnQ="
)

func TestSigningBlockLoadsOnEveryKind(t *testing.T) {
	t.Parallel()
	for _, dest := range []string{httpDest, rabbitDest, kafkaDest, natsDest} {
		name := strings.Fields(dest)[1]
		name = strings.TrimSuffix(name, ":")
		up := strings.ToUpper(name)
		cfg := mustLoad(t, testOptions(baseYAML+dest,
			"QUEUEBOX_DESTINATIONS_"+up+"_SIGNING_SECRET="+whsec,
			"QUEUEBOX_DESTINATIONS_"+up+"_SIGNING_PREVIOUSSECRETS_0="+whsec))
		s := cfg.Destinations[name].Signing
		require.NotNil(t, s, name)
		require.Equal(t, SigningStandardWebhooks, s.Scheme, "the scheme defaults")
		require.Equal(t, whsec, s.Secret.Reveal())
		require.Len(t, s.PreviousSecrets, 1)
	}
}

func TestSigningBlockRules(t *testing.T) {
	t.Parallel()
	const p = "destinations.hook.signing"
	prev := "      previousSecrets: [" + strings.Repeat(whsec+", ", 10) + whsec + "]\n"
	runRefusals(t, []refusal{
		{name: "scheme", extra: httpDest + "    signing:\n      scheme: svix\n      secret: " + whsec + "\n",
			want: []string{p + ".scheme (QUEUEBOX_DESTINATIONS_HOOK_SIGNING_SCHEME): must be one of standard-webhooks"}},
		{name: "no secret", extra: httpDest + "    signing:\n      scheme: standard-webhooks\n",
			want: []string{p + ".secret (QUEUEBOX_DESTINATIONS_HOOK_SIGNING_SECRET): required"}},
		{name: "short secret", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_SIGNING_SECRET=" + whsecShort},
			want: []string{p + ".secret (QUEUEBOX_DESTINATIONS_HOOK_SIGNING_SECRET): must be whsec_ followed by the base64 of 24 to 64 bytes: it decodes to 8 bytes"}},
		{name: "no prefix", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_SIGNING_SECRET=hunter2hunter2"},
			want: []string{p + ".secret (QUEUEBOX_DESTINATIONS_HOOK_SIGNING_SECRET): must be whsec_"}},
		{name: "bad previous", extra: httpDest, env: []string{"QUEUEBOX_DESTINATIONS_HOOK_SIGNING_SECRET=" + whsec, "QUEUEBOX_DESTINATIONS_HOOK_SIGNING_PREVIOUSSECRETS_0=nope"},
			want: []string{p + ".previousSecrets[0] (QUEUEBOX_DESTINATIONS_HOOK_SIGNING_PREVIOUSSECRETS_0): must be whsec_"}},
		{name: "eleven previous", extra: httpDest + "    signing:\n      secret: " + whsec + "\n" + prev,
			want: []string{p + ".previousSecrets (QUEUEBOX_DESTINATIONS_HOOK_SIGNING_PREVIOUSSECRETS): must list at most 10 secrets, got 11"}},
		{name: "static signing header", extra: httpDest + "    headers:\n      Webhook-Id: fixed\n    signing:\n      secret: " + whsec + "\n",
			want: []string{"destinations.hook.headers (QUEUEBOX_DESTINATIONS_HOOK_HEADERS): must not set Webhook-Id"}},
	})
}

func TestSigningErrorsNeverQuoteTheSecret(t *testing.T) {
	t.Parallel()
	err := loadError(t, testOptions(baseYAML+httpDest, "QUEUEBOX_DESTINATIONS_HOOK_SIGNING_SECRET=whsec_c2VjcmV0LXZhbHVl"))
	require.NotContains(t, FormatError(err), "c2VjcmV0LXZhbHVl")
}

func TestPresetsFillAttributes(t *testing.T) {
	t.Parallel()
	src := func(typ string) string {
		return "sources:\n  hooks:\n    path: /hooks\n    auth:\n      type: " + typ + "\n      secret: " + whsec + "\n"
	}
	cases := []struct {
		typ                    string
		keyPath, eventTypePath string
		keyHeaders             []string
		eventTypeHeader        string
	}{
		{AuthStripe, "$.id", "$.type", nil, ""},
		{AuthSlack, "$.event_id", "$.event.type", nil, ""},
		{AuthGitHub, "", "", []string{"x-github-delivery"}, "x-github-event"},
		{AuthShopify, "", "", []string{"x-shopify-webhook-id", "x-shopify-event-id"}, "x-shopify-topic"},
		{AuthStandardWebhooks, "", "$.type", []string{"webhook-id"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.typ, func(t *testing.T) {
			t.Parallel()
			cfg := mustLoad(t, testOptions(baseYAML+src(tc.typ)))
			s := cfg.Sources["hooks"]
			require.Equal(t, KindHTTP, s.Kind)
			require.Equal(t, tc.typ, s.Auth.Kind)
			require.Equal(t, 300, s.Auth.ToleranceSeconds)
			require.Equal(t, tc.keyPath, s.IdempotencyKeyPath)
			require.Equal(t, tc.eventTypePath, s.EventTypePath)
			require.Equal(t, tc.keyHeaders, s.IdempotencyKeyHeaders)
			require.Equal(t, tc.eventTypeHeader, s.EventTypeHeader)
		})
	}
	t.Run("the source's own paths win", func(t *testing.T) {
		t.Parallel()
		cfg := mustLoad(t, testOptions(baseYAML+src(AuthGitHub)+"    idempotencyKeyPath: $.hook_id\n    eventTypePath: $.action\n"))
		s := cfg.Sources["hooks"]
		require.Equal(t, "$.hook_id", s.IdempotencyKeyPath)
		require.Empty(t, s.IdempotencyKeyHeaders)
		require.Equal(t, "$.action", s.EventTypePath)
		require.Empty(t, s.EventTypeHeader)
	})
	t.Run("hmac without a type is unchanged", func(t *testing.T) {
		t.Parallel()
		cfg := mustLoad(t, testOptions(baseYAML+httpSource+"    auth:\n      secret: s3cret\n"))
		require.Equal(t, AuthHMAC, cfg.Sources["hooks"].Auth.Kind)
	})
}

func TestPresetRules(t *testing.T) {
	t.Parallel()
	const a = "sources.hooks.auth"
	preset := func(typ string) string {
		return "sources:\n  hooks:\n    path: /hooks\n    auth:\n      type: " + typ + "\n"
	}
	runRefusals(t, []refusal{
		{name: "no secret", extra: preset("stripe"),
			want: []string{a + ".secret (QUEUEBOX_SOURCES_HOOKS_AUTH_SECRET): required, because type names the stripe kind"}},
		{name: "standard-webhooks secret form", extra: preset("standard-webhooks") + "      secret: plain\n",
			want: []string{a + ".secret (QUEUEBOX_SOURCES_HOOKS_AUTH_SECRET): must be whsec_"}},
		{name: "tolerance", extra: preset("slack") + "      secret: slack-signing-secret-0123\n      toleranceSeconds: -1\n",
			want: []string{a + ".toleranceSeconds (QUEUEBOX_SOURCES_HOOKS_AUTH_TOLERANCESECONDS): must be above 0, got -1"}},
		{name: "too many previous", extra: preset("github") + "      secret: github-secret-0123456789\n      previousSecrets: [" + strings.TrimSuffix(strings.Repeat("previous-secret-0123,", 11), ",") + "]\n",
			want: []string{a + ".previousSecrets (QUEUEBOX_SOURCES_HOOKS_AUTH_PREVIOUSSECRETS): must list at most 10 secrets, got 11"}},
		{name: "preset on the admin routes", extra: "admin:\n  enabled: true\n  auth:\n    type: stripe\n    secret: s\n",
			want: []string{"admin.auth.type (QUEUEBOX_ADMIN_AUTH_TYPE): stripe verifies a provider's webhook"}},
		{name: "preset on a broker source", extra: rabbitSource + "    auth:\n      type: shopify\n      secret: shopify-secret-0123456789\n",
			want: []string{"sources.queue.auth.type (QUEUEBOX_SOURCES_QUEUE_AUTH_TYPE): shopify verifies an HTTP request"}},
	})
}

// A misspelt preset falls back to hmac, as any auth block with a secret
// does, and the load warns.
func TestMisspeltPresetWarns(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+httpSource+"    auth:\n      type: standard_webhooks\n      secret: "+whsec+"\n"))
	require.Equal(t, AuthHMAC, cfg.Sources["hooks"].Auth.Kind)
	require.Contains(t, cfg.Warnings(), `sources.hooks.auth.type is "standard_webhooks", but the keys of the entry select the hmac kind, which QueueBox uses`)
}

// github and shopify sign the body but not the header that names the
// delivery, so their sources key rows by the digest of the body unless
// deduplicateOnBody is false; no other kind takes the key.
func TestDeduplicateOnBody(t *testing.T) {
	t.Parallel()
	src := func(typ, extra string) string {
		return baseYAML + "sources:\n  hooks:\n    path: /hooks\n    auth:\n      type: " + typ + "\n      secret: provider-secret-0123456789\n" + extra
	}
	for typ, want := range map[string]bool{AuthGitHub: true, AuthShopify: true} {
		cfg := mustLoad(t, testOptions(src(typ, "")))
		require.NotNil(t, cfg.Sources["hooks"].Auth.DeduplicateOnBody, typ)
		require.Equal(t, want, *cfg.Sources["hooks"].Auth.DeduplicateOnBody, typ)
	}
	cfg := mustLoad(t, testOptions(src(AuthGitHub, "      deduplicateOnBody: false\n")))
	require.False(t, *cfg.Sources["hooks"].Auth.DeduplicateOnBody)
	cfg = mustLoad(t, testOptions(src(AuthStripe, "")))
	require.Nil(t, cfg.Sources["hooks"].Auth.DeduplicateOnBody, "stripe signs the id inside the body")
	runRefusals(t, []refusal{
		{name: "on stripe", extra: "sources:\n  hooks:\n    path: /hooks\n    auth:\n      type: stripe\n      secret: provider-secret-0123456789\n      deduplicateOnBody: true\n",
			want: []string{"sources.hooks.auth.deduplicateOnBody (QUEUEBOX_SOURCES_HOOKS_AUTH_DEDUPLICATEONBODY): applies to the github and shopify presets only, not to stripe"}},
	})
}
