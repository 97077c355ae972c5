// Package auth checks the credentials of an inbound request: the auth
// block of an HTTP inbox source and of the admin routes. It supports the
// three documented kinds: a bearer token in Authorization, an API key in a
// named header, and an HMAC signature of the body (optionally bound to a
// timestamp header) or, for the admin routes that VerifyRequest guards, of
// the timestamp, method, request target and body (request.go). HTTP sources also take provider presets (presets.go):
// stripe, github, shopify, slack and standard-webhooks, each verified the
// way its provider documents, with previous secrets for a rotation.
//
// Every comparison with a configured credential runs in constant time, and
// no error message ever holds a credential: each one names the check that
// failed, so a 401 body can carry it as it is.
package auth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Defaults that apply when Options leave a field empty. The
// configuration loader fills the same values.
const (
	DefaultAPIKeyHeader       = "X-API-Key"
	DefaultSignatureHeader    = "X-Signature"
	DefaultSignaturePrefix    = "sha256="
	DefaultTimestampTolerance = 300000 * time.Millisecond
)

// Verifier checks the credentials of one source or of the admin routes. It
// is immutable after New and safe for concurrent use.
type Verifier struct {
	check func(h http.Header, body []byte, now time.Time) error
	// request is VerifyRequest's check; nil checks as check does.
	request func(r *http.Request, body []byte, now time.Time) error
	// hmac is the configuration of the hmac kind, nil for the others.
	hmac    *hmacCheck
	headers []string
	// needsBody is true for hmac and the presets, the kinds that sign the
	// body.
	needsBody bool
	// slack answers Slack's url_verification request (Challenge).
	slack bool
}

// Error is a failed check. Its message names the check, never a
// credential, and is meant for the 401 answer.
type Error struct{ reason string }

func (e *Error) Error() string { return e.reason }

func failf(format string, args ...any) error { return &Error{reason: fmt.Sprintf(format, args...)} }

// New builds the verifier of opts. nil gives a verifier that accepts
// every request, the documented behaviour of a source without auth. An
// empty credential, an unknown kind or an unknown HMAC algorithm is an
// error, so misbuilt options never accept everything.
func New(opts *Options) (*Verifier, error) {
	if opts == nil {
		return &Verifier{check: func(http.Header, []byte, time.Time) error { return nil }}, nil
	}
	kind := strings.ToLower(strings.TrimSpace(opts.Kind))
	switch kind {
	case KindBearer:
		return newBearer(opts)
	case KindAPIKey:
		return newAPIKey(opts)
	case KindHMAC:
		return newHMAC(opts)
	case KindStripe, KindGitHub, KindShopify, KindSlack, KindStandardWebhooks:
		return newPreset(kind, opts)
	}
	return nil, fmt.Errorf("auth: unknown kind %q; use bearer, api-key, hmac, stripe, github, shopify, slack or standard-webhooks", kind)
}

// Verify checks the request headers and the raw body at time now. It
// returns nil when the request may pass, or an *Error whose message names
// the failed check.
func (v *Verifier) Verify(h http.Header, body []byte, now time.Time) error {
	return v.check(h, body, now)
}

// NeedsBody reports whether Verify reads the body: true for hmac and the
// provider presets.
// A caller checks the other kinds before it reads the body, so that a
// request without valid credentials costs no body read (Verify then takes
// a nil body).
func (v *Verifier) NeedsBody() bool { return v.needsBody }

// CredentialHeaders returns the names, as configured, of the headers that
// carry a credential for this verifier: Authorization for bearer, the key header
// for api-key, the signature header for hmac, none without auth. A source
// must not store these headers. The HMAC timestamp header is not listed:
// it holds a send time, not a secret, and the documentation promises to
// omit only the header that headerName names.
func (v *Verifier) CredentialHeaders() []string {
	return append([]string(nil), v.headers...)
}

// IsAuthError reports whether err is a failed check (and not, for
// example, a programming error of a caller).
func IsAuthError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// headerValue returns the one value of the credential header name. It
// fails when the header is absent or blank, and when the request repeats
// it: a repeated credential header is refused outright, so no part of
// QueueBox can read one value while another part reads the other (the
// check, storage and the header filter once took the first and the last).
func headerValue(h http.Header, name string) (string, error) {
	values := h.Values(name)
	if len(values) > 1 {
		return "", failf("Repeated %s header", name)
	}
	v := ""
	if len(values) == 1 {
		v = strings.TrimSpace(values[0])
	}
	if v == "" {
		return "", failf("Missing %s header", name)
	}
	return v, nil
}
