package httpdest

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/http/httpguts"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/secret"
)

// Defaults that New applies to zero fields of Options.
const (
	DefaultPath              = "/"
	DefaultTimeout           = 30 * time.Second
	DefaultMaxErrorBodyBytes = 2048
	DefaultAuthHeaderName    = "Authorization"
)

// Auth kinds.
const (
	AuthOAuth2 = "oauth2"
	AuthBasic  = "basic"
	AuthHeader = "header"
)

// Options configure one HTTP destination. They mirror the destination block
// of the configuration plus the process-wide http block, so that this
// package needs no configuration package.
type Options struct {
	// Name is the destination name; errors and logs carry it.
	Name string
	// BaseURL and Path give the request URL; see JoinURL. Path defaults to
	// "/".
	BaseURL, Path string
	// Timeout bounds each HTTP request, the OAuth2 token request included.
	// The connect timeout is half of it. Default 30 s.
	Timeout time.Duration
	// Headers are the static headers of every request.
	Headers map[string]string
	// Auth is nil for a destination without credentials.
	Auth *Auth
	// MaxErrorBodyBytes caps the response body that a failed publish keeps
	// in its error. Default 2048.
	MaxErrorBodyBytes int
	// Redactor knows the secrets of the whole configuration. The publisher
	// adds its own credentials and the current access token. May be nil.
	Redactor *redact.Redactor
	// Responses counts destination responses per status class; see
	// NewResponsesCounter. May be nil.
	Responses *prometheus.CounterVec
	// BlockPrivateAddresses refuses, in the dialer, every connection of
	// the publish and of the OAuth2 token request to a loopback, private,
	// link-local, carrier-grade NAT, NAT64 or IPv4-mapped inside address
	// (package netguard), whatever the name resolved to. Such a publish
	// fails with an error that matches queuebox.ErrUndeliverable. The
	// publisher then connects directly: a proxy from the environment would
	// resolve the name itself, out of the guard's sight.
	BlockPrivateAddresses bool
	// Resolver resolves destination and token hosts; nil uses the system
	// resolver. Tests point it at a DNS server of their own.
	Resolver *net.Resolver
	// NoHTTP1FastPath sends a plain http:// target through net/http's
	// Transport too, instead of the publisher's own HTTP/1.1 client
	// (direct), which otherwise serves every plain http:// target that no
	// proxy variable sends through a proxy. The bytes on the wire are
	// the same but for the Transport's Accept-Encoding: gzip.
	NoHTTP1FastPath bool
	// Client replaces the publisher's own client, for tests. Neither
	// BlockPrivateAddresses nor Resolver applies to it. The publisher
	// uses a copy that never follows a redirect; Close leaves its
	// connections alone.
	Client *http.Client
	// Logger receives debug lines about token refreshes. May be nil.
	Logger *slog.Logger
	// Now is the clock of the token cache, for tests. Default time.Now.
	Now func() time.Time
}

// Auth holds the credentials of a destination. Kind selects which fields
// apply: ClientID, ClientSecret, TokenURL, Scope and ExtraParams for
// "oauth2"; Username and Password for "basic"; HeaderName and HeaderValue
// for "header".
type Auth struct {
	Kind         string
	ClientID     string
	ClientSecret secret.Secret
	TokenURL     string
	Scope        string
	ExtraParams  map[string]string
	Username     string
	Password     secret.Secret
	HeaderName   string
	HeaderValue  secret.Secret
}

// withDefaults validates opts and returns a copy with defaults applied.
func (opts Options) withDefaults() (Options, error) {
	if opts.Path == "" {
		opts.Path = DefaultPath
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Timeout < 0 {
		return opts, errors.New("timeout must be above 0")
	}
	if opts.MaxErrorBodyBytes == 0 {
		opts.MaxErrorBodyBytes = DefaultMaxErrorBodyBytes
	}
	if opts.MaxErrorBodyBytes < 0 {
		return opts, errors.New("maxErrorBodyBytes must be above 0")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := checkHeaders("static header", opts.Headers); err != nil {
		return opts, err
	}
	return opts, nil
}

// checkHeaders refuses a header that net/http would refuse at send time, so
// that a bad configuration fails at start instead of on every delivery.
// Errors name the header but never quote its value.
func checkHeaders(what string, h map[string]string) error {
	for name, value := range h {
		if !httpguts.ValidHeaderFieldName(name) {
			return fmt.Errorf("%s %q: invalid header name", what, name)
		}
		if !httpguts.ValidHeaderFieldValue(value) {
			return fmt.Errorf("%s %q: invalid header value", what, name)
		}
	}
	return nil
}

// checkRow refuses a row that no attempt can send: a row header that
// net/http refuses, or a topic or key that cannot travel in the X-Topic
// or X-Message-Key header (a control character). row holds the row
// headers that queuebox.RowHeaders lets through (see rowGroup), since
// the others are never sent.
func checkRow(m *queuebox.OutboxMessage, row map[string]string) error {
	if err := checkHeaders("row header", row); err != nil {
		return err
	}
	if !httpguts.ValidHeaderFieldValue(m.Topic) {
		return errors.New("the topic holds a control character, which the X-Topic header cannot carry")
	}
	if !httpguts.ValidHeaderFieldValue(m.Key) {
		return errors.New("the key holds a control character, which the X-Message-Key header cannot carry")
	}
	return nil
}

// validate checks the fields that the kind of a requires.
func (a *Auth) validate() error {
	switch strings.ToLower(a.Kind) {
	case AuthOAuth2:
		if a.ClientID == "" || a.ClientSecret.IsEmpty() {
			return errors.New("oauth2 auth needs clientId and clientSecret")
		}
		if err := CheckURL(a.TokenURL); err != nil {
			return fmt.Errorf("oauth2 tokenUrl %w", err)
		}
	case AuthBasic:
		if a.Username == "" || a.Password.IsEmpty() {
			return errors.New("basic auth needs username and password")
		}
		if strings.Contains(a.Username, ":") {
			// RFC 7617: the first colon ends the user name.
			return errors.New("basic auth username must not hold a colon")
		}
	case AuthHeader:
		if a.HeaderValue.IsEmpty() {
			return errors.New("header auth needs headerValue")
		}
		return checkHeaders("auth header", map[string]string{a.headerName(): a.HeaderValue.Reveal()})
	default:
		return fmt.Errorf("auth kind %q: want oauth2, basic or header", a.Kind)
	}
	return nil
}

// headerName returns the header of the header kind, Authorization unless
// set.
func (a *Auth) headerName() string {
	if a.HeaderName == "" {
		return DefaultAuthHeaderName
	}
	return a.HeaderName
}
