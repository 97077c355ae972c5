package httpdest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// ErrClosed reports a Publish after Close.
var ErrClosed = errors.New("http destination: publisher is closed")

// Publisher delivers outbox messages to one HTTP destination. It is safe
// for concurrent use; concurrent publishes share one connection pool and
// one OAuth2 token.
type Publisher struct {
	opts   Options
	target string
	client *http.Client
	// own is the transport of the publishes, which Close shuts; nil for a
	// caller's client.
	own  ownTransport
	auth authorizer // nil without credentials
	// reserved holds the canonical names that a relayed row cannot send.
	reserved map[string]bool
	// static is opts.Headers sorted once, for buildHeader.
	static []headerPair
	// redactor knows the configuration secrets and this destination's own.
	redactor *redact.Redactor
	// baseCtx bounds work that outlives one caller, the shared token fetch;
	// Close cancels it.
	baseCtx context.Context
	cancel  context.CancelFunc
	closed  atomic.Bool
}

var _ queuebox.Publisher = (*Publisher)(nil)

// New validates opts, applies the defaults and returns a publisher. It
// checks the URL rules (CheckURL, CheckPath) for the target and the token
// URL, the auth fields and the static header names and values. Private
// addresses are refused on every connection when
// Options.BlockPrivateAddresses is true (package netguard); the
// configuration validator also checks the hosts once at start.
func New(opts Options) (*Publisher, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", destPrefix(opts.Name), err)
	}
	target, err := JoinURL(opts.BaseURL, opts.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", destPrefix(opts.Name), err)
	}
	if opts.Auth != nil {
		if err := opts.Auth.validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", destPrefix(opts.Name), err)
		}
	}
	p := &Publisher{opts: opts, target: target, reserved: reservedNames(opts.Headers, opts.Auth),
		static: sortedGroup(opts.Headers)}
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", destPrefix(opts.Name), err)
	}
	p.client, p.own = newClient(opts, u)
	p.baseCtx, p.cancel = context.WithCancel(context.Background())
	var secrets []string
	p.auth, secrets = newAuthorizer(p, opts.Auth)
	p.redactor = opts.Redactor.With(secrets...)
	return p, nil
}

// Target returns the request URL, base URL and path joined.
func (p *Publisher) Target() string { return p.target }

// Publish POSTs d.Body to the destination and returns nil only for a 2xx
// answer. Any other status, a redirect, a timeout, a connection error or a
// token failure returns an *Error. When d.Receipt is set, it receives the
// status of the answer and, for a failed one, the start of its body as
// the *Error holds it (redacted, at most MaxErrorBodyBytes); a request
// that got no answer leaves it empty. With OAuth2, a 401 drops the cached
// token and the request is sent once more with a new one, within this
// call. Each HTTP request is bounded by Options.Timeout; Publish also
// returns when ctx ends, with an error that wraps ctx.Err().
func (p *Publisher) Publish(ctx context.Context, d queuebox.Delivery) error {
	if p.closed.Load() {
		return ErrClosed
	}
	if d.Message == nil {
		return errors.New("http destination: delivery without a message")
	}
	row, err := rowGroup(d.Message, p.reserved)
	if err != nil {
		return &queuebox.UndeliverableError{Reason: fmt.Sprintf("%s: %v", p.stage(false), err), Err: err}
	}
	cred, err := p.credential(ctx)
	if err != nil {
		return err
	}
	status, err := p.send(ctx, d, row, cred)
	if status != http.StatusUnauthorized || p.auth == nil || !p.auth.rejected(cred) {
		return err
	}
	if cred, err = p.credential(ctx); err != nil {
		return err
	}
	_, err = p.send(ctx, d, row, cred)
	return err
}

// credential returns the auth header of the next request, or none.
func (p *Publisher) credential(ctx context.Context) (credential, error) {
	if p.auth == nil {
		return credential{}, nil
	}
	return p.auth.credential(ctx)
}

// send performs one request with the row's headers (rowGroup) and returns
// its status (0 without response) and the error of a failed attempt.
func (p *Publisher) send(ctx context.Context, d queuebox.Delivery, row []headerPair, cred credential) (int, error) {
	reqCtx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	// The body is read before cancel runs, so the timeout also bounds it.
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, p.target, bytes.NewReader(d.Body))
	if err != nil {
		return 0, p.transportError(ctx, err, false, p.redactor)
	}
	req.Header = buildHeader(d.Message, p.static, row, cred)
	resp, err := p.roundTrip(req)
	if err != nil {
		p.count(StatusClassOther)
		return 0, p.transportError(ctx, err, false, p.redactorFor(cred))
	}
	p.count(statusClass(resp.StatusCode))
	if d.Receipt != nil {
		// A second request (a new OAuth2 token after a 401) replaces what
		// the first one answered.
		*d.Receipt = queuebox.Receipt{Status: strconv.Itoa(resp.StatusCode)}
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		drainClose(resp.Body)
		return resp.StatusCode, nil
	}
	e := p.statusError(resp, false, p.redactorFor(cred))
	if d.Receipt != nil {
		d.Receipt.Answer = e.Body
	}
	return resp.StatusCode, e
}

// roundTrip sends one request. With the publisher's own transport it
// skips http.Client, whose Do copies every request's headers for the
// redirects that refuseRedirect turns down anyway, and which has no
// cookie jar or timeout to add here. The error is wrapped as Do wraps it,
// so a failed attempt reads the same in last_error.
func (p *Publisher) roundTrip(req *http.Request) (*http.Response, error) {
	if p.own == nil {
		return p.client.Do(req)
	}
	resp, err := p.own.RoundTrip(req)
	if err != nil {
		return nil, &url.Error{Op: "Post", URL: req.URL.String(), Err: err}
	}
	return resp, nil
}

// redactorFor adds the credential of one request to the redactor. Only an
// OAuth2 token is new to it; it changes, so it cannot be known at New.
func (p *Publisher) redactorFor(cred credential) *redact.Redactor {
	if cred.secret == "" {
		return p.redactor
	}
	return p.redactor.With(cred.secret)
}

// Close cancels a token fetch in flight and closes the idle connections of
// the publisher's own transport. Publish calls that follow return
// ErrClosed. Close is idempotent and always returns nil.
func (p *Publisher) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	p.cancel()
	if p.own != nil {
		p.own.CloseIdleConnections()
	}
	return nil
}
