package queuebox

import "strings"

// The headers that the relay sets on every outbox row it creates. Each
// replaces a received header of the same name in any letter case, so a
// sender cannot set them, and HeaderInboxID therefore marks a relayed row.
const (
	HeaderInboxID        = "x-inbox-id"
	HeaderSource         = "x-source"
	HeaderIdempotencyKey = "x-idempotency-key"
	HeaderCorrelationID  = "X-Correlation-Id"
)

// Relayed reports whether row headers belong to a row that the relay
// created from an inbox message: they hold HeaderInboxID, in any letter
// case. The relay always sets it and a sender cannot, so the headers of
// such a row, apart from the four relay headers, came from outside. An
// application that writes the header itself only gives up its own
// precedence (see RowHeaders).
func Relayed(headers map[string]string) bool {
	for name := range headers {
		if strings.EqualFold(name, HeaderInboxID) {
			return true
		}
	}
	return false
}

// hopByHop are the lower-case names of the headers that describe one
// connection or one hop, never the message (RFC 9110 section 7.6.1, and
// the framing headers that net/http writes itself). No row forwards them.
var hopByHop = map[string]bool{
	"connection": true, "keep-alive": true, "te": true, "trailer": true,
	"transfer-encoding": true, "upgrade": true, "host": true,
	"content-length": true, "expect": true,
	"proxy-connection": true, "proxy-authenticate": true, "proxy-authorization": true,
}

// outsideOnly are the lower-case names that a relayed row does not forward
// beyond hopByHop: what a proxy in front of QueueBox wrote about the
// sender (including the client-address headers of CDNs and load
// balancers), the sender's credentials for QueueBox (never stored by an
// HTTP source, refused here for rows stored before that rule), the
// negotiation of the encoding, which is QueueBox's own (the body a
// publisher sends is never encoded), and the method, host and URL
// overrides that frameworks and proxies honour on any POST (X-Original-Host,
// X-Host, X-Original-Method, and the IP-allowlist bypasses X-ProxyUser-Ip
// and X-Custom-IP-Authorization). It is a denylist, not an allowlist:
// relayed rows must keep passing on the provider headers (Stripe-Signature,
// X-GitHub-Event, ...) that a receiver verifies, and those have no fixed
// list.
var outsideOnly = map[string]bool{
	"forwarded": true, "via": true, "x-real-ip": true,
	"authorization": true, "cookie": true, "accept-encoding": true,
	"content-encoding":       true,
	"x-http-method-override": true, "x-http-method": true, "x-method-override": true,
	"x-original-url": true, "x-rewrite-url": true,
	"true-client-ip": true, "cf-connecting-ip": true, "x-client-ip": true,
	"x-cluster-client-ip": true, "fastly-client-ip": true,
	"x-original-host": true, "x-host": true, "x-original-method": true,
	"x-proxyuser-ip": true, "x-custom-ip-authorization": true,
}

// Forwardable reports whether a header of a row may travel on a delivery
// at all: never a hop-by-hop header, and on a relayed row never a
// forwarding (Forwarded, X-Forwarded-*, Via, X-Real-IP, the CDN
// client-address headers), credential, encoding, method-override or
// URL-override header either.
func Forwardable(name string, relayed bool) bool {
	lower := strings.ToLower(name)
	if hopByHop[lower] || strings.HasPrefix(lower, "proxy-") {
		return false
	}
	if !relayed {
		return true
	}
	return !outsideOnly[lower] && !strings.HasPrefix(lower, "x-forwarded-")
}

// RowHeaders returns the row headers that a publisher may send, the one
// rule of every destination kind:
//
//   - A header that is not Forwardable is dropped.
//   - On a relayed row (see Relayed), a header that reserved reports is
//     dropped too: reserved names the headers that the publisher sets
//     itself (its standard headers, its static headers and its auth
//     header), so a webhook sender can neither replace one of them nor add
//     a second value to it.
//   - On a row that the application wrote, every other header stays, and
//     the publisher applies the documented precedence: a row header wins
//     over a static or auth header; a standard header gets a second value.
//
// reserved receives the name as the row spells it and must match in any
// letter case (protocols whose names are case-sensitive may choose
// otherwise). It may be nil. The result is a new map; headers is not
// changed.
func RowHeaders(headers map[string]string, reserved func(name string) bool) map[string]string {
	relayed := Relayed(headers)
	out := make(map[string]string, len(headers))
	for name, value := range headers {
		if !Forwardable(name, relayed) {
			continue
		}
		if relayed && reserved != nil && reserved(name) {
			continue
		}
		out[name] = value
	}
	return out
}

// Reserved returns the reserved function of RowHeaders for a publisher
// whose own headers are standard (names in any letter case) and the
// destination's static headers: a name matches either in any letter
// case.
func Reserved(standard []string, static map[string]string) func(name string) bool {
	return func(name string) bool {
		for _, s := range standard {
			if strings.EqualFold(s, name) {
				return true
			}
		}
		for s := range static {
			if strings.EqualFold(s, name) {
				return true
			}
		}
		return false
	}
}
