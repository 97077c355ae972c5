package httpdest

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/alternayte/queuebox/pkg/netguard"
)

// Pool sizes of the publisher transport. The outbox poller publishes to one
// destination with several workers at once (8 by default, more when
// tuned); an idle pool at least that deep per host keeps every worker on a
// warm connection instead of a new TCP and TLS handshake per message.
const (
	maxIdleConnsPerHost = 64
	maxIdleConns        = 128
	idleConnTimeout     = 90 * time.Second
	tcpKeepAlive        = 30 * time.Second
)

// ownTransport is a transport that the publisher owns and closes.
type ownTransport interface {
	http.RoundTripper
	CloseIdleConnections()
}

// newClient returns the HTTP client of a publisher (the OAuth2 token
// requests use it) and the transport of its publishes, which the
// publisher owns, or nil when opts.Client supplies the transport. A plain
// http:// target that no proxy variable sends through a proxy is published
// to by direct unless opts.NoHTTP1FastPath; every other one by the
// client's net/http Transport.
func newClient(opts Options, target *url.URL) (*http.Client, ownTransport) {
	if opts.Client != nil {
		c := *opts.Client
		c.CheckRedirect = refuseRedirect
		return &c, nil
	}
	// The connect timeout is half the request timeout, as the destination
	// reference documents; the TLS handshake gets the same bound.
	dialer := &net.Dialer{Timeout: opts.Timeout / 2, KeepAlive: tcpKeepAlive, Resolver: opts.Resolver}
	proxy := http.ProxyFromEnvironment
	if opts.BlockPrivateAddresses {
		// The check runs on the address the socket is about to connect
		// to, after every resolution, so no DNS answer can slip past it.
		dialer.Control = netguard.Control("")
		proxy = nil
	}
	tr := &http.Transport{
		Proxy:                 proxy,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   opts.Timeout / 2,
		MaxIdleConns:          maxIdleConns,
		MaxIdleConnsPerHost:   maxIdleConnsPerHost,
		IdleConnTimeout:       idleConnTimeout,
		ExpectContinueTimeout: time.Second,
	}
	client := &http.Client{Transport: tr, CheckRedirect: refuseRedirect}
	if target.Scheme == "http" && !opts.NoHTTP1FastPath && !proxied(proxy, target) {
		return client, newDirect(hostPort(target), dialer.DialContext, maxIdleConnsPerHost)
	}
	return client, tr
}

// proxied reports whether proxy sends requests to target through a proxy;
// a proxy setting that fails to parse counts as one, so net/http reports it.
func proxied(proxy func(*http.Request) (*url.URL, error), target *url.URL) bool {
	if proxy == nil {
		return false
	}
	u, err := proxy(&http.Request{URL: target})
	return err != nil || u != nil
}

// hostPort is the address to dial for an http:// URL: its host with the
// port, 80 when the URL names none.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// refuseRedirect hands a 3xx back to the caller unfollowed. Following it
// would let a destination send QueueBox, credentials attached, to any
// address, a cloud metadata endpoint included.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
