package netguard

import (
	"net/netip"
	"strconv"
	"strings"
)

// ParseHost returns the IP address that host spells, by the rules a C
// library's resolver applies before any DNS lookup: an IPv6 or dotted
// quad literal (netip), or an IPv4 address in one of the legacy forms of
// inet_aton: one to four parts separated by dots, each decimal, octal
// (leading 0) or hexadecimal (leading 0x), the last part filling the
// bytes that are left ("127.1", "2130706433", "0x7f000001", "0177.0.0.1").
// Go's resolver reads none of the legacy forms, but librdkafka hands the
// name to getaddrinfo, which connects to the address they spell. ok is
// false for a host that is a name.
func ParseHost(host string) (addr netip.Addr, ok bool) {
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil {
		return a, true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var values []uint64
	for _, p := range parts {
		v, ok := legacyPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		values = append(values, v)
	}
	return legacyAddr(values)
}

// legacyPart reads one part of an inet_aton address.
func legacyPart(p string) (uint64, bool) {
	base, digits := 10, p
	switch {
	case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
		base, digits = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	if digits == "" {
		// "0x" alone is zero to inet_aton; "" is no part at all.
		return 0, base == 16
	}
	if digits[0] == '+' || digits[0] == '-' {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, base, 32)
	return v, err == nil
}

// legacyAddr joins the parts: each but the last is one byte, and the last
// fills the rest.
func legacyAddr(values []uint64) (netip.Addr, bool) {
	last := len(values) - 1
	var n uint64
	for _, v := range values[:last] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n = n<<8 | v
	}
	rest := uint(8 * (4 - last))
	if values[last] >= 1<<rest {
		return netip.Addr{}, false
	}
	n = n<<rest | values[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}
