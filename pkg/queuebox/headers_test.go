package queuebox_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestRowHeaders(t *testing.T) {
	t.Parallel()
	reserved := func(name string) bool { return strings.EqualFold(name, "X-Topic") || strings.EqualFold(name, "X-Team") }
	tests := []struct {
		name string
		in   map[string]string
		want map[string]string
	}{
		{"application row keeps reserved names", map[string]string{"x-topic": "t", "X-Team": "a", "x-forwarded-for": "1"},
			map[string]string{"x-topic": "t", "X-Team": "a", "x-forwarded-for": "1"}},
		{"application row drops hop-by-hop", map[string]string{"Connection": "close", "Proxy-Foo": "x", "TE": "trailers", "keep": "1"},
			map[string]string{"keep": "1"}},
		{"relayed row drops reserved and forwarding", map[string]string{"X-Inbox-Id": "i", "x-topic": "t", "x-team": "b",
			"X-Forwarded-Proto": "http", "forwarded": "for=x", "host": "h", "cookie": "c", "stripe-id": "s"},
			map[string]string{"X-Inbox-Id": "i", "stripe-id": "s"}},
		{"relayed row drops overrides, client addresses and encoding", map[string]string{"X-Inbox-Id": "i",
			"X-HTTP-Method-Override": "DELETE", "x-http-method": "PUT", "X-Method-Override": "PATCH",
			"X-Original-URL": "/admin", "X-Rewrite-URL": "/admin", "True-Client-IP": "127.0.0.1",
			"CF-Connecting-IP": "127.0.0.1", "X-Client-IP": "127.0.0.1", "X-Cluster-Client-IP": "127.0.0.1",
			"Fastly-Client-IP": "127.0.0.1", "Content-Encoding": "gzip", "Stripe-Signature": "t=1,v1=x"},
			map[string]string{"X-Inbox-Id": "i", "Stripe-Signature": "t=1,v1=x"}},
		{"relayed row drops host, method and address overrides", map[string]string{"X-Inbox-Id": "i",
			"X-Original-Host": "admin.internal", "x-host": "admin.internal", "X-Original-Method": "DELETE",
			"X-ProxyUser-Ip": "127.0.0.1", "X-Custom-IP-Authorization": "127.0.0.1", "X-GitHub-Event": "push"},
			map[string]string{"X-Inbox-Id": "i", "X-GitHub-Event": "push"}},
		{"application row keeps overrides", map[string]string{"X-HTTP-Method-Override": "DELETE", "Content-Encoding": "gzip"},
			map[string]string{"X-HTTP-Method-Override": "DELETE", "Content-Encoding": "gzip"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := queuebox.RowHeaders(tc.in, reserved)
			if !maps.Equal(got, tc.want) {
				t.Fatalf("RowHeaders(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestReservedMatchesStandardAndStaticNamesInAnyCase(t *testing.T) {
	t.Parallel()
	r := queuebox.Reserved([]string{"x-topic"}, map[string]string{"X-Api-Key": "k"})
	for name, want := range map[string]bool{"X-Topic": true, "x-api-key": true, "X-API-KEY": true, "x-tenant": false} {
		if r(name) != want {
			t.Errorf("Reserved(%q) = %v, want %v", name, !want, want)
		}
	}
}
