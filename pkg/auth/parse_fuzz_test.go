package auth_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/alternayte/queuebox/pkg/auth"
)

// FuzzParseStripeSignature: any header value parses or fails without a
// panic, and a value that parses has one numeric timestamp and a v1.
func FuzzParseStripeSignature(f *testing.F) {
	f.Add("t=1492774577,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd,v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39")
	f.Add("t=1,t=2,v1=00")
	f.Add("v1=,t=,=,,")
	f.Fuzz(func(t *testing.T, value string) {
		s, err := auth.ParseStripeSignature(value)
		if err != nil {
			if !auth.IsAuthError(err) {
				t.Fatalf("%q: %v is not an auth error", value, err)
			}
			return
		}
		if len(s.V1) == 0 {
			t.Fatalf("%q parsed without a v1", value)
		}
		if ts, err := strconv.ParseInt(s.TimestampText, 10, 64); err != nil || ts != s.Timestamp {
			t.Fatalf("%q: timestamp %q / %d", value, s.TimestampText, s.Timestamp)
		}
	})
}

// fuzzMAC checks a parser of one fixed-size MAC: it never panics, and a
// value that parses gives 32 bytes and starts with prefix.
func fuzzMAC(f *testing.F, prefix string, parse func(string) ([]byte, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		raw, err := parse(value)
		if err != nil {
			if !auth.IsAuthError(err) {
				t.Fatalf("%q: %v is not an auth error", value, err)
			}
			return
		}
		if len(raw) != 32 || !strings.HasPrefix(value, prefix) {
			t.Fatalf("%q parsed to %d bytes", value, len(raw))
		}
	})
}

func FuzzParseGitHubSignature(f *testing.F) {
	fuzzMAC(f, "sha256=", auth.ParseGitHubSignature,
		"sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17", "sha256=", "sha1=00")
}

func FuzzParseSlackSignature(f *testing.F) {
	fuzzMAC(f, "v0=", auth.ParseSlackSignature,
		"v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503", "v0=zz", "v1=00")
}

func FuzzParseShopifySignature(f *testing.F) {
	fuzzMAC(f, "", auth.ParseShopifySignature,
		"dXNlZCB0byBiZSAzMiBieXRlcyBvZiBwYWRkaW5nIQ==", "", "====")
}
