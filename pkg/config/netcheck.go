package config

import (
	"context"
	"net"
	"strings"
	"time"
)

// lookupTimeout bounds one DNS lookup of the start-time address check, so
// a slow resolver delays the start by seconds, not minutes.
const lookupTimeout = 2 * time.Second

// siteLocalV6 is the deprecated IPv6 site-local range fec0::/10, which the
// reference's "site-local" also covers.
var siteLocalV6 = &net.IPNet{IP: net.ParseIP("fec0::"), Mask: net.CIDRMask(10, 128)}

// privateAddress refuses a destination host that resolves to an address
// inside the network when http.blockPrivateAddresses is true. A host that
// does not resolve passes: the check runs once at start and only the
// network can enforce the rule on every request.
func (v *validator) privateAddress(path keyPath, host string) {
	if !v.cfg.HTTP.BlockPrivateAddresses || host == "" {
		return
	}
	for _, ip := range v.resolve(host) {
		if kind := privateKind(ip); kind != "" {
			v.add(path, "host %s resolves to %s, a %s address, and %s is true", host, ip, kind,
				keyPath{"http", "blockPrivateAddresses"}.ref())
			return
		}
	}
}

// resolve returns the addresses of host: the literal itself, or what
// Options.LookupHost finds within lookupTimeout. A failed lookup gives none.
func (v *validator) resolve(host string) []net.IP {
	literal, _, _ := strings.Cut(host, "%") // drop an IPv6 zone
	if ip := net.ParseIP(literal); ip != nil {
		return []net.IP{ip}
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	ips, err := v.opts.LookupHost(ctx, host)
	if err != nil {
		return nil
	}
	return ips
}

// privateKind names the range of ip that the check refuses, or "".
func privateKind(ip net.IP) string {
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsPrivate() && ip.To4() != nil:
		return "private (site-local)"
	case ip.IsPrivate():
		return "unique-local"
	case siteLocalV6.Contains(ip):
		return "site-local"
	case ip.IsUnspecified():
		return "unspecified"
	}
	return ""
}
