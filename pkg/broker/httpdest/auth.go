package httpdest

import (
	"context"
	"encoding/base64"
	"strings"
)

// credential is the auth header of one request.
type credential struct {
	name, value string
	// secret is the part of value to mask in error texts: the token,
	// the base64 pair or the configured header value.
	secret string
}

// authorizer supplies the auth header of each request. Implementations are
// safe for concurrent use.
type authorizer interface {
	// credential returns the header for the next request. It may block on
	// a token fetch, and returns early with an error when ctx ends.
	credential(ctx context.Context) (credential, error)
	// rejected tells that the destination answered 401 to c. It returns
	// true when a new credential may succeed, so one retry is worthwhile.
	rejected(c credential) bool
}

// staticAuth sends the same header on every request: the basic and the
// header kinds.
type staticAuth struct{ cred credential }

func (s staticAuth) credential(context.Context) (credential, error) { return s.cred, nil }

// rejected returns false: the same static credential cannot succeed on a
// retry.
func (s staticAuth) rejected(credential) bool { return false }

// newAuthorizer returns the authorizer of a (nil when a is nil) and the
// secret values that error texts of this destination must never show.
// a is already validated.
func newAuthorizer(p *Publisher, a *Auth) (authorizer, []string) {
	if a == nil {
		return nil, nil
	}
	switch strings.ToLower(a.Kind) {
	case AuthOAuth2:
		return newOAuth2(p, a), []string{a.ClientSecret.Reveal()}
	case AuthBasic:
		pair := base64.StdEncoding.EncodeToString([]byte(a.Username + ":" + a.Password.Reveal()))
		cred := credential{name: DefaultAuthHeaderName, value: "Basic " + pair, secret: pair}
		return staticAuth{cred}, []string{a.Password.Reveal(), pair}
	default: // AuthHeader
		v := a.HeaderValue.Reveal()
		secrets := []string{v}
		// "Bearer abc" or "Token abc": a server may echo the part after the
		// scheme alone.
		if _, after, ok := strings.Cut(v, " "); ok && strings.TrimSpace(after) != "" {
			secrets = append(secrets, strings.TrimSpace(after))
		}
		return staticAuth{credential{name: a.headerName(), value: v, secret: v}}, secrets
	}
}
