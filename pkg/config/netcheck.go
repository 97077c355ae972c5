package config

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/netguard"
)

// lookupTimeout bounds one DNS lookup of the start-time address check, so
// a slow resolver delays the start by seconds, not minutes.
const lookupTimeout = 2 * time.Second

// privateAddress refuses a destination host that resolves to an address
// inside the network when http.blockPrivateAddresses is true. A host that
// does not resolve passes: the check runs once at start and only the
// network can enforce the rule on every request.
func (v *validator) privateAddress(path keyPath, host string) {
	if !v.cfg.HTTP.BlockPrivateAddresses || host == "" {
		return
	}
	for _, ip := range v.resolve(host) {
		addr, ok := netip.AddrFromSlice(ip)
		if !ok {
			continue
		}
		if kind := netguard.Describe(addr); kind != "" {
			v.add(path, "host %s resolves to %s, %s, and %s is true", host, addr.Unmap(), kind,
				keyPath{"http", "blockPrivateAddresses"}.ref())
			return
		}
	}
}

// resolve returns the addresses of host: the literal itself, in any form
// that netguard.ParseHost reads (the legacy IPv4 spellings such as 127.1
// included, which a C resolver connects to), or what Options.LookupHost
// finds within lookupTimeout. A failed lookup gives none.
func (v *validator) resolve(host string) []net.IP {
	literal, _, _ := strings.Cut(host, "%") // drop an IPv6 zone
	if addr, ok := netguard.ParseHost(literal); ok {
		return []net.IP{addr.AsSlice()}
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	ips, err := v.opts.LookupHost(ctx, host)
	if err != nil {
		return nil
	}
	return ips
}
