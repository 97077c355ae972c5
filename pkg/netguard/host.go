package netguard

import (
	"context"
	"net"
	"net/netip"
	"strconv"
)

// Lookup resolves a host name to its addresses. SystemLookup is the one
// the binaries use; tests pass their own.
type Lookup func(ctx context.Context, host string) ([]netip.Addr, error)

// SystemLookup resolves host with the system resolver.
func SystemLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// CheckHost resolves the host of hostport ("host:port", an IP literal, a
// legacy IPv4 spelling that ParseHost reads, or a name) with lookup and
// returns the *BlockedError of its first address that Describe names, or
// nil. It is for a client that dials on its own (librdkafka), where no
// dial guard can see the address, so what it cannot see it refuses too: a
// hostport that does not parse, and a name that lookup cannot resolve
// (the client's own resolver might). ctx bounds the lookup.
func CheckHost(ctx context.Context, destination, hostport string, lookup Lookup) *BlockedError {
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return &BlockedError{Destination: destination, Host: hostport, Kind: "not a host and port"}
	}
	port, _ := strconv.ParseUint(portText, 10, 16)
	addrs := []netip.Addr{}
	if literal, ok := ParseHost(host); ok {
		addrs = append(addrs, literal)
	} else if addrs, err = lookup(ctx, host); err != nil || len(addrs) == 0 {
		return &BlockedError{Destination: destination, Host: hostport, Kind: "a name that Go cannot resolve"}
	}
	for _, addr := range addrs {
		if kind := Describe(addr); kind != "" {
			return &BlockedError{Destination: destination, Addr: netip.AddrPortFrom(addr.WithZone(""), uint16(port)), Kind: kind}
		}
	}
	return nil
}
