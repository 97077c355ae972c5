package queuebox_test

import (
	"strings"
	"testing"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// senderOnly are the names that describe the sender's request to
// QueueBox, never the message: a relayed row must not forward them.
var senderOnly = map[string]bool{
	"x-http-method-override": true, "x-http-method": true, "x-method-override": true,
	"x-original-url": true, "x-rewrite-url": true, "true-client-ip": true,
	"cf-connecting-ip": true, "x-client-ip": true, "x-cluster-client-ip": true,
	"fastly-client-ip": true, "content-encoding": true, "x-real-ip": true,
	"forwarded": true, "via": true, "authorization": true, "cookie": true,
	"x-original-host": true, "x-host": true, "x-original-method": true,
	"x-proxyuser-ip": true, "x-custom-ip-authorization": true,
}

// FuzzRowHeaders checks the header rule on any pair of names: no result
// holds a hop-by-hop header, a relayed row never keeps a reserved,
// forwarding or credential name, and a row the application wrote keeps
// every other header.
func FuzzRowHeaders(f *testing.F) {
	f.Add("X-Topic", "x", "content-type", "text/plain", true)
	f.Add("x-forwarded-for", "10.0.0.1", "X-Auth-Token", "t", true)
	f.Add("Connection", "close", "X-Team", "a", false)
	f.Add("proxy-authorization", "Basic x", "x-inbox-id", "i", false)
	f.Add("X-HTTP-Method-Override", "DELETE", "CF-Connecting-IP", "127.0.0.1", true)
	f.Add("Content-Encoding", "gzip", "X-Original-URL", "/admin", true)
	f.Fuzz(func(t *testing.T, name1, value1, name2, value2 string, relayed bool) {
		in := map[string]string{name1: value1, name2: value2}
		if relayed {
			in[queuebox.HeaderInboxID] = "in-1"
		}
		reserved := func(name string) bool {
			return strings.EqualFold(name, "X-Topic") || strings.EqualFold(name, "Content-Type") || strings.EqualFold(name, "X-Auth-Token")
		}
		out := queuebox.RowHeaders(in, reserved)
		isRelayed := queuebox.Relayed(in)
		for name, value := range out {
			if in[name] != value {
				t.Fatalf("header %q changed its value", name)
			}
			if !queuebox.Forwardable(name, isRelayed) {
				t.Fatalf("kept %q, which is not forwardable", name)
			}
			if isRelayed && reserved(name) {
				t.Fatalf("relayed row kept the reserved %q", name)
			}
			lower := strings.ToLower(name)
			if lower == "connection" || lower == "host" || strings.HasPrefix(lower, "proxy-") ||
				(isRelayed && (strings.HasPrefix(lower, "x-forwarded-") || senderOnly[lower])) {
				t.Fatalf("kept %q", name)
			}
		}
		for name := range in {
			_, kept := out[name]
			if !isRelayed && queuebox.Forwardable(name, false) && !kept {
				t.Fatalf("application row lost %q", name)
			}
		}
	})
}
