package httpdest

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
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

// oauth2Auth caches the access token of the client credentials grant,
// which golang.org/x/oauth2/clientcredentials requests. The cache stays
// here rather than in the library's ReuseTokenSource for three reasons:
// the token is replaced a tenth of its lifetime early (at most 30 s), not
// a fixed delta; its age is read from the publisher's clock; and a caller
// whose context ends stops waiting for a fetch that others share. A 401
// from the destination drops the token it refused (rejected), which the
// library has no way to ask for. Concurrent callers that find no fresh
// token share one fetch.
type oauth2Auth struct {
	p     *Publisher
	grant *clientcredentials.Config
	// client sends the token request: the publisher's client (its guard
	// and no-redirect rule) with QueueBox's request headers.
	client *http.Client

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

func newOAuth2(p *Publisher, a *Auth) *oauth2Auth {
	client := *p.client
	client.Transport = tokenHeaders{next: client.Transport}
	return &oauth2Auth{p: p, grant: grantOf(a), client: &client}
}

// grantOf is the client credentials grant of a. The client secret travels
// in the body only. The grant's own fields win over the extra parameters,
// so an extra parameter can neither replace the grant type, the client nor
// a configured scope.
func grantOf(a *Auth) *clientcredentials.Config {
	params := url.Values{}
	for k, v := range a.ExtraParams {
		switch {
		case k == "grant_type", k == "client_id", k == "client_secret":
		case k == "scope" && a.Scope != "":
		default:
			params.Set(k, v)
		}
	}
	g := &clientcredentials.Config{
		ClientID: a.ClientID, ClientSecret: a.ClientSecret.Reveal(), TokenURL: a.TokenURL,
		EndpointParams: params, AuthStyle: oauth2.AuthStyleInParams,
	}
	if a.Scope != "" {
		g.Scopes = []string{a.Scope}
	}
	return g
}

// tokenHeaders sets the headers QueueBox sends with a token request, and
// reads a text/plain answer as JSON: servers that send JSON without its
// media type exist, and the library would read text/plain as a form.
type tokenHeaders struct{ next http.RoundTripper }

func (t tokenHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(req)
	if err == nil {
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/plain" {
			resp.Header.Set("Content-Type", "application/json")
		}
	}
	return resp, err
}

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

// fetch runs the grant. It obeys the publisher timeout, guard and
// no-redirect rule, and its errors never quote a successful response,
// which holds the token.
func (o *oauth2Auth) fetch() (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(o.p.baseCtx, o.p.opts.Timeout)
	defer cancel()
	tok, err := o.grant.Token(context.WithValue(ctx, oauth2.HTTPClient, o.client))
	if err != nil {
		return "", 0, o.grantError(err)
	}
	return tok.AccessToken, tokenLifetime(tok), nil
}

// grantError turns an error of the grant into the publisher's: a status
// (with the redacted start of the body), no response, or an invalid token
// response, whose text is fixed so that no part of the body shows.
func (o *oauth2Auth) grantError(err error) error {
	var status *oauth2.RetrieveError
	if errors.As(err, &status) && status.Response != nil &&
		(status.Response.StatusCode < 200 || status.Response.StatusCode > 299) {
		resp := *status.Response
		resp.Body = io.NopCloser(strings.NewReader(string(status.Body)))
		return o.p.statusError(&resp, true, o.p.redactor)
	}
	var transport *url.Error
	if errors.As(err, &transport) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return o.p.transportError(o.p.baseCtx, err, true, o.p.redactor)
	}
	code := http.StatusOK
	if status != nil && status.Response != nil {
		code = status.Response.StatusCode // a 2xx answer that holds an error
	}
	return o.p.tokenResponseError(code, errInvalidTokenResponse)
}
