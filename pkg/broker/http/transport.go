package httpdest

import (
	"crypto/tls"
	"net"
	"net/http"
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

// newClient returns the HTTP client of a publisher and the transport that
// it owns, or nil when opts.Client supplies the transport.
func newClient(opts Options) (*http.Client, *http.Transport) {
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
	return &http.Client{Transport: tr, CheckRedirect: refuseRedirect}, tr
}

// refuseRedirect hands a 3xx back to the caller unfollowed. Following it
// would let a destination send QueueBox, credentials attached, to any
// address, a cloud metadata endpoint included.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
