package httpdest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/httpdest"
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
		{"http://127.0.0.1", nil}, // addresses are checked at start (http.blockPrivateAddresses)
		{"", httpdest.ErrNotAbsoluteHTTP},
		{"api.example.com/events", httpdest.ErrNotAbsoluteHTTP},
		{"/events", httpdest.ErrNotAbsoluteHTTP},
		{"ftp://files.example.com", httpdest.ErrNotAbsoluteHTTP},
		{"file:///etc/passwd", httpdest.ErrNotAbsoluteHTTP},
		{"http:opaque", httpdest.ErrNotAbsoluteHTTP},
		{"https://api.example.com:99999", httpdest.ErrNotAbsoluteHTTP},
		{"https://api.example.com:0", httpdest.ErrNotAbsoluteHTTP},
		{"https://exa mple.com", httpdest.ErrNotAbsoluteHTTP},
		{"https://", httpdest.ErrNoHost},
		{"https:///path", httpdest.ErrNoHost},
		{"http://:8080", httpdest.ErrNoHost},
		{"https://user@api.example.com", httpdest.ErrUserInfo},
		{"https://user:pw@api.example.com", httpdest.ErrUserInfo},
		{"https://:pw@api.example.com", httpdest.ErrUserInfo},
		{"https://@api.example.com", httpdest.ErrUserInfo},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			t.Parallel()
			err := httpdest.CheckURL(tc.raw)
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
			err := httpdest.CheckPath(tc.path)
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
	require.ErrorIs(t, httpdest.CheckPath("/a/../b"), httpdest.ErrDotSegment)
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
			got, err := httpdest.JoinURL(tc.base, tc.path)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := httpdest.JoinURL("https://x.example", "/a/../b")
	require.ErrorIs(t, err, httpdest.ErrDotSegment)
	_, err = httpdest.JoinURL("x.example", "/a")
	require.ErrorIs(t, err, httpdest.ErrNotAbsoluteHTTP)
}
