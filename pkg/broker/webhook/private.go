package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// ErrPrivateAddress reports a destination host that resolves to an address
// inside the network of QueueBox.
var ErrPrivateAddress = errors.New("resolves to a private address")

// Address ranges that CheckPrivate refuses beyond those that the netip
// predicates cover.
var (
	// carrierNAT is 100.64.0.0/10 (RFC 6598). It is not "private" in the
	// RFC 1918 sense, but cloud providers and Kubernetes networks use it for
	// internal addresses, so it is refused with the private ranges.
	carrierNAT = netip.MustParsePrefix("100.64.0.0/10")
	// thisNetwork is 0.0.0.0/8; Linux connects an address in it to the
	// local host.
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	// siteLocal is fec0::/10, the deprecated IPv6 site-local range.
	siteLocal = netip.MustParsePrefix("fec0::/10")
	// nat64 is 64:ff9b::/96; its last 32 bits are an IPv4 address that a
	// NAT64 gateway reaches, so that embedded address is checked too.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// CheckPrivate refuses a host that is, or resolves to, a loopback,
// link-local (169.254.0.0/16, fe80::/10), private or site-local (10.0.0.0/8,
// 172.16.0.0/12, 192.168.0.0/16, fec0::/10), carrier-grade NAT
// (100.64.0.0/10), unique-local (fc00::/7) or unspecified address. One such
// address among several refuses the host. host may carry a port and IPv6
// brackets. An IP literal is checked without a lookup. A host that does not
// resolve passes, as the configuration reference documents, unless ctx
// ended, in which case CheckPrivate returns ctx.Err(). lookup defaults to
// net.DefaultResolver.LookupIP for "ip" when nil.
//
// The check runs once, at start: it cannot stop a DNS record that changes
// later, which only an egress policy of the network can.
func CheckPrivate(ctx context.Context, host string, lookup func(context.Context, string) ([]net.IP, error)) error {
	host = bareHost(host)
	if addr, err := netip.ParseAddr(host); err == nil {
		return checkAddr(host, addr)
	}
	if lookup == nil {
		lookup = func(ctx context.Context, h string) ([]net.IP, error) {
			return net.DefaultResolver.LookupIP(ctx, "ip", h)
		}
	}
	ips, err := lookup(ctx, host)
	if err != nil {
		return ctx.Err()
	}
	for _, ip := range ips {
		addr, ok := netip.AddrFromSlice(ip)
		if !ok {
			continue
		}
		if err := checkAddr(host, addr); err != nil {
			return err
		}
	}
	return nil
}

// bareHost strips a port, IPv6 brackets and a trailing root dot.
func bareHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(host, ".")
}

// checkAddr returns ErrPrivateAddress when addr lies in a refused range.
func checkAddr(host string, addr netip.Addr) error {
	addr = addr.WithZone("").Unmap()
	if kind := privateKind(addr); kind != "" {
		return fmt.Errorf("host %s %w: %s is %s", host, ErrPrivateAddress, addr, kind)
	}
	if addr.Is6() && nat64.Contains(addr) {
		b := addr.As16()
		embedded := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		if kind := privateKind(embedded); kind != "" {
			return fmt.Errorf("host %s %w: %s embeds %s, which is %s", host, ErrPrivateAddress, addr, embedded, kind)
		}
	}
	return nil
}

// privateKind names the refused range that addr lies in, or returns "".
func privateKind(addr netip.Addr) string {
	switch {
	case addr.IsLoopback():
		return "a loopback address"
	case addr.IsUnspecified() || thisNetwork.Contains(addr):
		return "an unspecified address"
	case addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast():
		return "a link-local address"
	case addr.Is6() && !addr.Is4In6() && addr.IsPrivate():
		return "a unique-local address"
	case addr.IsPrivate() || siteLocal.Contains(addr):
		return "a private address"
	case carrierNAT.Contains(addr):
		return "a carrier-grade NAT address"
	}
	return ""
}
