package httpdest_test

import (
	"net"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/httpdest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/secret"
)

// port returns the port of a receiver URL.
func port(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Port()
}

// The guard checks the address the dialer connects to on every publish,
// so a name that resolves inside the network is refused however it
// resolved at start, and the same name reaches the receiver without it.
func TestGuardRefusesTheAddressActuallyConnectedTo(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	dns := newDNSServer(t)
	dns.set("api.rebind.test", "127.0.0.1")
	base := "http://api.rebind.test:" + port(t, rec.URL)

	open := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: base, Resolver: dns.resolver()})
	require.NoError(t, open.Publish(t.Context(), delivery("", 0)), "without the guard the test name reaches the receiver")
	require.Len(t, rec.Requests(), 1)

	guarded := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: base, Resolver: dns.resolver(), BlockPrivateAddresses: true})
	for range 2 {
		err := guarded.Publish(t.Context(), delivery("", 0))
		require.ErrorIs(t, err, queuebox.ErrUndeliverable)
		require.Contains(t, err.Error(), "http destination orders")
		require.Contains(t, err.Error(), "127.0.0.1:"+port(t, rec.URL))
		require.Contains(t, err.Error(), "a loopback address")
	}
	require.Len(t, rec.Requests(), 1, "the guarded publisher never connected")
}

func TestGuardRefusesLiteralAndMappedAddresses(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	for _, host := range []string{"127.0.0.1", "[::ffff:127.0.0.1]", "localhost"} {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			p := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: "http://" + host + ":" + port(t, rec.URL), BlockPrivateAddresses: true})
			err := p.Publish(t.Context(), delivery("", 0))
			require.ErrorIs(t, err, queuebox.ErrUndeliverable)
			require.Contains(t, err.Error(), "refused")
		})
	}
	require.Empty(t, rec.Requests())
}

// The OAuth2 token request goes through the same guard: the client secret
// it carries never reaches an inside address.
func TestGuardCoversTheTokenRequest(t *testing.T) {
	t.Parallel()
	tokens := brokertest.NewHTTPReceiver(t, nil)
	dns := newDNSServer(t)
	dns.set("auth.rebind.test", "127.0.0.1")
	p := newPublisher(t, httpdest.Options{
		Name: "orders", BaseURL: "https://203.0.113.7", BlockPrivateAddresses: true, Resolver: dns.resolver(),
		Auth: &httpdest.Auth{Kind: httpdest.AuthOAuth2, ClientID: "qb", ClientSecret: secret.New("cs-1"),
			TokenURL: "http://auth.rebind.test:" + port(t, tokens.URL) + "/token"},
	})
	err := p.Publish(t.Context(), delivery("", 0))
	require.ErrorIs(t, err, queuebox.ErrUndeliverable)
	var pubErr *httpdest.Error
	require.ErrorAs(t, err, &pubErr)
	require.True(t, pubErr.TokenRequest)
	require.Contains(t, err.Error(), "oauth2 token request")
	require.Contains(t, err.Error(), net.JoinHostPort("127.0.0.1", port(t, tokens.URL)))
	require.Empty(t, tokens.Requests())
}
