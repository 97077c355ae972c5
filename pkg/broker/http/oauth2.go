package httpdest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

const (
	// defaultTokenLifetime applies to a token response without expires_in.
	// It is short on purpose: the real lifetime is unknown, and a 401 also
	// triggers a refresh.
	defaultTokenLifetime = 5 * time.Minute
	// maxRefreshMargin is the most that a token is refreshed ahead of its
	// expiry, so that a request never leaves with a token that expires in
	// flight. A short-lived token uses a tenth of its lifetime instead.
	maxRefreshMargin = 30 * time.Second
)

// oauth2Auth runs the client credentials grant and caches the access
// token. Concurrent callers that find no fresh token share one fetch.
type oauth2Auth struct {
	p    *Publisher
	auth *Auth

	mu        sync.Mutex
	token     string    // the cached access token, "" when none
	refreshAt time.Time // when token stops being served
	inflight  *tokenFetch
}

// tokenFetch is one token request that several callers wait on. token and
// err are written before done closes and only read after.
type tokenFetch struct {
	done  chan struct{}
	token string
	err   error
}

func newOAuth2(p *Publisher, a *Auth) *oauth2Auth { return &oauth2Auth{p: p, auth: a} }

// credential returns the bearer header of the cached token, fetching a new
// token first when none is fresh.
func (o *oauth2Auth) credential(ctx context.Context) (credential, error) {
	tok, err := o.get(ctx)
	if err != nil {
		return credential{}, err
	}
	return credential{name: DefaultAuthHeaderName, value: "Bearer " + tok, secret: tok}, nil
}

// rejected drops the cached token when it is the one that the destination
// refused. A token that another caller has refreshed in the meantime stays.
func (o *oauth2Auth) rejected(c credential) bool {
	o.mu.Lock()
	if o.token == c.secret {
		o.token = ""
	}
	o.mu.Unlock()
	o.p.opts.Logger.Debug("oauth2 token refused by the destination; fetching a new one", "destination", o.p.opts.Name)
	return true
}

// get returns a fresh token. The fetch runs on its own goroutine, bounded by
// the publisher timeout and Close, so that a caller whose ctx ends returns
// at once without failing the other callers that share the fetch.
func (o *oauth2Auth) get(ctx context.Context) (string, error) {
	o.mu.Lock()
	if o.token != "" && o.p.opts.Now().Before(o.refreshAt) {
		tok := o.token
		o.mu.Unlock()
		return tok, nil
	}
	f := o.inflight
	if f == nil {
		f = &tokenFetch{done: make(chan struct{})}
		o.inflight = f
		go o.run(f)
	}
	o.mu.Unlock()
	select {
	case <-f.done:
		return f.token, f.err
	case <-ctx.Done():
		return "", o.p.transportError(ctx, ctx.Err(), true, o.p.redactor)
	}
}

// run performs fetch f and publishes its result to the cache and to the
// waiting callers.
func (o *oauth2Auth) run(f *tokenFetch) {
	started := o.p.opts.Now()
	tok, lifetime, err := o.fetch()
	o.mu.Lock()
	if err == nil {
		o.token = tok
		// Count the lifetime from before the request: the server started
		// its clock no earlier than that.
		o.refreshAt = started.Add(lifetime - refreshMargin(lifetime))
	}
	o.inflight = nil
	o.mu.Unlock()
	f.token, f.err = tok, err
	close(f.done)
}

// refreshMargin is how long before its expiry a token is replaced.
func refreshMargin(lifetime time.Duration) time.Duration {
	return min(maxRefreshMargin, lifetime/10)
}

// fetch sends the token request. It obeys the publisher timeout and the
// no-redirect rule, and it never reports the response of a successful
// request, which holds the token.
func (o *oauth2Auth) fetch() (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(o.p.baseCtx, o.p.opts.Timeout)
	defer cancel()
	body := o.form().Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.auth.TokenURL, strings.NewReader(body))
	if err != nil {
		return "", 0, o.p.transportError(o.p.baseCtx, err, true, o.p.redactor)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	resp, err := o.p.client.Do(req)
	if err != nil {
		return "", 0, o.p.transportError(o.p.baseCtx, err, true, o.p.redactor)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", 0, o.p.statusError(resp, true, o.p.redactor)
	}
	defer drainClose(resp.Body)
	tok, lifetime, err := parseToken(resp)
	if err != nil {
		return "", 0, o.p.tokenResponseError(resp.StatusCode, err)
	}
	return tok, lifetime, nil
}

// form builds the token request body. The grant fields are set after the
// extra parameters, so an extra parameter cannot replace them.
func (o *oauth2Auth) form() url.Values {
	form := url.Values{}
	for k, v := range o.auth.ExtraParams {
		form.Set(k, v)
	}
	form.Set("grant_type", "client_credentials")
	form.Set("client_id", o.auth.ClientID)
	form.Set("client_secret", o.auth.ClientSecret.Reveal())
	if o.auth.Scope != "" {
		form.Set("scope", o.auth.Scope)
	}
	return form
}
