package auth

import "github.com/alternayte/queuebox/pkg/secret"

// The kinds of credential check, spelled as the configuration spells
// them.
const (
	KindBearer = "bearer"
	KindAPIKey = "api-key"
	KindHMAC   = "hmac"
	// The provider presets of an HTTP source (presets.go).
	KindStripe           = "stripe"
	KindGitHub           = "github"
	KindShopify          = "shopify"
	KindSlack            = "slack"
	KindStandardWebhooks = "standard-webhooks"
)

// What an hmac signature covers (Options.SignaturePayloadFormat).
const (
	PayloadBody             = "BODY"
	PayloadTimestampDotBody = "TIMESTAMP_DOT_BODY"
)

// Options describe the credentials of one source or of the admin routes.
// The package reads no configuration: the wiring maps an auth block onto
// Options. New applies the defaults of the fields left empty and refuses
// what cannot be checked; it copies what it keeps, so later changes to an
// Options do not reach a Verifier.
type Options struct {
	// Kind is one of the Kind constants, in any letter case.
	Kind string

	// Token is the bearer token (bearer).
	Token secret.Secret
	// Key is the API key (api-key).
	Key secret.Secret
	// HeaderName carries the key (api-key, default DefaultAPIKeyHeader)
	// or the signature (hmac, default DefaultSignatureHeader).
	HeaderName string

	// Secret is the HMAC key (hmac and the presets).
	Secret secret.Secret
	// Algorithm is HmacSHA256 (the default) or HmacSHA512 (hmac).
	Algorithm string
	// SignaturePrefix precedes the hexadecimal signature (hmac); nil
	// means DefaultSignaturePrefix, an empty string no prefix.
	SignaturePrefix *string
	// TimestampHeader, when set, carries the send time in Unix
	// milliseconds, which must lie within TimestampTolerance (in
	// milliseconds, default DefaultTimestampTolerance) of the clock
	// (hmac).
	TimestampHeader    string
	TimestampTolerance int
	// SignaturePayloadFormat is PayloadBody or PayloadTimestampDotBody
	// (also in lower case with dashes); empty signs the timestamp when
	// there is a TimestampHeader (hmac).
	SignaturePayloadFormat string

	// PreviousSecrets are still accepted during a rotation (the presets).
	PreviousSecrets []secret.Secret
	// ToleranceSeconds bounds the age of a timestamped preset request, in
	// both directions; 0 means DefaultToleranceSeconds.
	ToleranceSeconds int
}
