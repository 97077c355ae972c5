package wiring

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/secret"
)

func TestAuthOptionsMapEveryField(t *testing.T) {
	t.Parallel()
	prefix := "v1="
	a := &config.SourceAuth{
		Kind: config.AuthHMAC, Type: "HMAC", Token: secret.New("tok"), Key: secret.New("key"), HeaderName: "X-Sig",
		Secret: secret.New("shh"), Algorithm: "HmacSHA512", SignaturePrefix: &prefix, TimestampHeader: "X-Ts",
		TimestampTolerance: 1500, SignaturePayloadFormat: config.PayloadTimestampDotBody,
		PreviousSecrets: []secret.Secret{secret.New("old")}, ToleranceSeconds: 60,
	}
	got := AuthOptions(a)
	require.Equal(t, &auth.Options{
		Kind: auth.KindHMAC, Token: secret.New("tok"), Key: secret.New("key"), HeaderName: "X-Sig",
		Secret: secret.New("shh"), Algorithm: "HmacSHA512", SignaturePrefix: &prefix, TimestampHeader: "X-Ts",
		TimestampTolerance: 1500, SignaturePayloadFormat: auth.PayloadTimestampDotBody,
		PreviousSecrets: []secret.Secret{secret.New("old")}, ToleranceSeconds: 60,
	}, got)
	v := reflect.ValueOf(*got)
	for i := range v.NumField() {
		require.False(t, v.Field(i).IsZero(), "auth.Options.%s is not mapped", v.Type().Field(i).Name)
	}

	a.PreviousSecrets[0] = secret.New("changed")
	require.Equal(t, secret.New("old"), got.PreviousSecrets[0], "the options do not share the block's list")
}

func TestAuthOptionsWithoutBlockOrKind(t *testing.T) {
	t.Parallel()
	require.Nil(t, AuthOptions(nil))
	got := AuthOptions(&config.SourceAuth{Type: "Bearer", Token: secret.New("tok")})
	require.Equal(t, "Bearer", got.Kind, "a block that the loader did not fill gives its type")
	_, err := auth.New(got)
	require.NoError(t, err)
}

// The kinds and formats that the mapping passes through unchanged are the
// same words in both packages, and auth knows every preset of the
// configuration.
func TestAuthKeepsTheConfigWords(t *testing.T) {
	t.Parallel()
	require.Equal(t,
		[]string{config.AuthBearer, config.AuthAPIKey, config.AuthHMAC, config.PayloadBody, config.PayloadTimestampDotBody},
		[]string{auth.KindBearer, auth.KindAPIKey, auth.KindHMAC, auth.PayloadBody, auth.PayloadTimestampDotBody})
	presets := []string{config.AuthStripe, config.AuthGitHub, config.AuthShopify, config.AuthSlack, config.AuthStandardWebhooks}
	require.Equal(t, presets, []string{auth.KindStripe, auth.KindGitHub, auth.KindShopify, auth.KindSlack, auth.KindStandardWebhooks})
	for _, kind := range presets {
		require.True(t, config.IsPreset(kind), kind)
		_, err := auth.New(&auth.Options{Kind: kind})
		require.EqualError(t, err, "auth: "+kind+" needs a secret", "auth builds the preset %s", kind)
	}
}
