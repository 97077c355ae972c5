package webhook_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/webhook"
)

func TestCheckURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  string
		want error // nil for a valid URL
	}{
		{"https://api.example.com", nil},
		{"http://analytics:8080", nil},
		{"https://api.example.com/base/path?x=1", nil},
		{"HTTPS://API.EXAMPLE.COM", nil},
		{"http://[::1]:8080/x", nil},
		{"http://127.0.0.1", nil}, // addresses are CheckPrivate's business
		{"", webhook.ErrNotAbsoluteHTTP},
		{"api.example.com/events", webhook.ErrNotAbsoluteHTTP},
		{"/events", webhook.ErrNotAbsoluteHTTP},
		{"ftp://files.example.com", webhook.ErrNotAbsoluteHTTP},
		{"file:///etc/passwd", webhook.ErrNotAbsoluteHTTP},
		{"http:opaque", webhook.ErrNotAbsoluteHTTP},
		{"https://api.example.com:99999", webhook.ErrNotAbsoluteHTTP},
		{"https://api.example.com:0", webhook.ErrNotAbsoluteHTTP},
		{"https://exa mple.com", webhook.ErrNotAbsoluteHTTP},
		{"https://", webhook.ErrNoHost},
		{"https:///path", webhook.ErrNoHost},
		{"http://:8080", webhook.ErrNoHost},
		{"https://user@api.example.com", webhook.ErrUserInfo},
		{"https://user:pw@api.example.com", webhook.ErrUserInfo},
		{"https://:pw@api.example.com", webhook.ErrUserInfo},
		{"https://@api.example.com", webhook.ErrUserInfo},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			t.Parallel()
			err := webhook.CheckURL(tc.raw)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
			require.NotContains(t, err.Error(), "pw")
		})
	}
}

func TestCheckPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		ok   bool
	}{
		{"", true},
		{"/", true},
		{"/events", true},
		{"events", true},
		{"/api/v1/events/", true},
		{"/a.b/c..d/.well-known", true},
		{"/events?tenant=a", true},
		{"/x?next=../y", true}, // the query is not a path
		{".", false},
		{"..", false},
		{"/./events", false},
		{"/../admin", false},
		{"/api/..", false},
		{"/api/../admin", false},
		{"/api/%2e%2e/admin", false},
		{"/api/%2E/admin", false},
		{`/api\..\admin`, false},
		{"/events#frag", false},
		{"/events\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			err := webhook.CheckPath(tc.path)
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
	require.ErrorIs(t, webhook.CheckPath("/a/../b"), webhook.ErrDotSegment)
}

func TestJoinURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, path, want string
	}{
		{"https://x.example", "/events", "https://x.example/events"},
		{"https://x.example/", "/events", "https://x.example/events"},
		{"https://x.example", "events", "https://x.example/events"},
		{"https://x.example/", "events", "https://x.example/events"},
		{"https://x.example/api", "/events", "https://x.example/api/events"},
		{"https://x.example/api/", "events/", "https://x.example/api/events/"},
		{"https://x.example", "", "https://x.example/"},
		{"https://x.example", "/", "https://x.example/"},
		{"https://x.example/hooks", "/", "https://x.example/hooks/"},
		{"https://x.example/api?v=2", "/events", "https://x.example/api/events?v=2"},
		{"https://x.example/api?v=2", "/events?t=a", "https://x.example/api/events?v=2&t=a"},
		{"https://x.example", "//evil.example/x", "https://x.example/evil.example/x"},
		{"https://x.example", "/@evil.example", "https://x.example/@evil.example"},
	}
	for _, tc := range tests {
		t.Run(tc.base+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			got, err := webhook.JoinURL(tc.base, tc.path)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := webhook.JoinURL("https://x.example", "/a/../b")
	require.ErrorIs(t, err, webhook.ErrDotSegment)
	_, err = webhook.JoinURL("x.example", "/a")
	require.ErrorIs(t, err, webhook.ErrNotAbsoluteHTTP)
}

func TestCheckPrivate(t *testing.T) {
	t.Parallel()
	dns := map[string][]net.IP{
		"public.example":   {net.ParseIP("93.184.216.34"), net.ParseIP("2606:2800:220:1:248:1893:25c8:1946")},
		"internal.example": {net.ParseIP("10.1.2.3")},
		"mixed.example":    {net.ParseIP("93.184.216.34"), net.ParseIP("192.168.0.10")},
		"local.example":    {net.ParseIP("127.0.0.1")},
		"meta.example":     {net.ParseIP("169.254.169.254")},
		"cgnat.example":    {net.ParseIP("100.100.0.1")},
		"ula.example":      {net.ParseIP("fd00:ec2::254")},
	}
	lookup := func(_ context.Context, host string) ([]net.IP, error) {
		if ips, ok := dns[host]; ok {
			return ips, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	tests := []struct {
		host    string
		private bool
	}{
		{"public.example", false},
		{"public.example:443", false},
		{"unknown.example", false}, // does not resolve: passes
		{"internal.example", true},
		{"mixed.example", true},
		{"local.example", true},
		{"local.example.", true},
		{"meta.example", true},
		{"cgnat.example", true},
		{"ula.example", true},
		{"8.8.8.8", false},
		{"2001:4860:4860::8888", false},
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"[::1]:8080", true},
		{"10.0.0.1", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"172.32.0.1", false},
		{"192.168.1.1", true},
		{"169.254.0.1", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"fec0::1", true},
		{"100.64.0.1", true},
		{"100.127.255.254", true},
		{"100.128.0.1", false},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"::", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:8.8.8.8", false},
		{"64:ff9b::a00:1", true},    // NAT64 of 10.0.0.1
		{"64:ff9b::808:808", false}, // NAT64 of 8.8.8.8
		{"224.0.0.251", true},       // link-local multicast
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			t.Parallel()
			err := webhook.CheckPrivate(t.Context(), tc.host, lookup)
			if tc.private {
				require.ErrorIs(t, err, webhook.ErrPrivateAddress)
			} else {
				require.NoError(t, err)
			}
		})
	}
}

func TestCheckPrivateLiteralSkipsLookup(t *testing.T) {
	t.Parallel()
	lookup := func(context.Context, string) ([]net.IP, error) {
		t.Error("an IP literal must not be looked up")
		return nil, errors.New("unexpected")
	}
	require.NoError(t, webhook.CheckPrivate(t.Context(), "93.184.216.34", lookup))
	require.ErrorIs(t, webhook.CheckPrivate(t.Context(), "127.0.0.1", lookup), webhook.ErrPrivateAddress)
}

func TestCheckPrivateCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	lookup := func(ctx context.Context, _ string) ([]net.IP, error) { return nil, ctx.Err() }
	require.ErrorIs(t, webhook.CheckPrivate(ctx, "api.example", lookup), context.Canceled)
}

func TestCheckPrivateDefaultResolver(t *testing.T) {
	t.Parallel()
	// "localhost" resolves through /etc/hosts, without network access.
	require.ErrorIs(t, webhook.CheckPrivate(t.Context(), "localhost", nil), webhook.ErrPrivateAddress)
}
