package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// newBearer checks "Authorization: Bearer <token>". The scheme name
// matches in any letter case; a value without a scheme fails.
func newBearer(opts *Options) (*Verifier, error) {
	if opts.Token.IsEmpty() {
		return nil, fmt.Errorf("auth: bearer needs a token")
	}
	want := opts.Token.Reveal()
	check := func(h http.Header, _ []byte, _ time.Time) error {
		value, err := headerValue(h, "Authorization")
		if err != nil {
			return err
		}
		scheme, token, found := strings.Cut(value, " ")
		if !found || !strings.EqualFold(scheme, "Bearer") {
			return failf("Authorization header does not use the Bearer scheme")
		}
		if !equalSecret(strings.TrimLeft(token, " "), want) {
			return failf("Invalid bearer token")
		}
		return nil
	}
	return &Verifier{check: check, headers: []string{"Authorization"}}, nil
}

// newAPIKey checks the key in the header that headerName names.
func newAPIKey(opts *Options) (*Verifier, error) {
	if opts.Key.IsEmpty() {
		return nil, fmt.Errorf("auth: api-key needs a key")
	}
	name := strings.TrimSpace(opts.HeaderName)
	if name == "" {
		name = DefaultAPIKeyHeader
	}
	want := opts.Key.Reveal()
	check := func(h http.Header, _ []byte, _ time.Time) error {
		value, err := headerValue(h, name)
		if err != nil {
			return err
		}
		if !equalSecret(value, want) {
			return failf("Invalid API key")
		}
		return nil
	}
	return &Verifier{check: check, headers: []string{name}}, nil
}

// equalSecret compares a received value with a credential in constant
// time. Both sides are hashed first, so the time does not even depend on
// whether the lengths match.
func equalSecret(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}
