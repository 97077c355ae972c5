package wiring

import (
	"slices"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/config"
)

// AuthOptions maps an auth block of the configuration (of an HTTP source,
// admin.auth or admin.viewer) onto the options of package auth, which
// reads no configuration. nil stays nil: no block, no check. The kind is
// the one the loader derived, or else the type as written, as a block
// built by code may set only that.
func AuthOptions(a *config.SourceAuth) *auth.Options {
	if a == nil {
		return nil
	}
	kind := a.Kind
	if kind == "" {
		kind = a.Type
	}
	return &auth.Options{
		Kind: kind, Token: a.Token, Key: a.Key, HeaderName: a.HeaderName,
		Secret: a.Secret, Algorithm: a.Algorithm, SignaturePrefix: a.SignaturePrefix,
		TimestampHeader: a.TimestampHeader, TimestampTolerance: a.TimestampTolerance,
		SignaturePayloadFormat: a.SignaturePayloadFormat,
		PreviousSecrets:        slices.Clone(a.PreviousSecrets), ToleranceSeconds: a.ToleranceSeconds,
	}
}
