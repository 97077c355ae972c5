// Package netguard tells whether an IP address lies inside the network
// that QueueBox runs in, for http.blockPrivateAddresses: the destinations
// and token endpoints of a deployment that sends to the internet only must
// not reach the cloud metadata service, the database or a sidecar.
package netguard

import (
	"fmt"
	"net/netip"
	"syscall"
)

// Ranges refused beyond those that the netip predicates cover.
var (
	// carrierNAT is 100.64.0.0/10 (RFC 6598). It is not private in the
	// RFC 1918 sense, but cloud and Kubernetes networks use it inside.
	carrierNAT = netip.MustParsePrefix("100.64.0.0/10")
	// thisNetwork is 0.0.0.0/8; Linux connects an address in it to the
	// local host.
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	// siteLocal is fec0::/10, the deprecated IPv6 site-local range.
	siteLocal = netip.MustParsePrefix("fec0::/10")
	// nat64 is 64:ff9b::/96: its last 32 bits are an IPv4 address that a
	// NAT64 gateway reaches, so that address is what counts.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// Describe names the inside range that addr lies in, with its article
// ("a loopback address"), or returns "" for an address outside. An
// IPv4-mapped IPv6 address counts as its IPv4 address, and a NAT64
// address as the IPv4 address it embeds.
func Describe(addr netip.Addr) string {
	addr = addr.WithZone("").Unmap()
	if kind := describe(addr); kind != "" {
		return kind
	}
	if addr.Is6() && nat64.Contains(addr) {
		b := addr.As16()
		embedded := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		if kind := describe(embedded); kind != "" {
			return fmt.Sprintf("the NAT64 form of %s, %s", embedded, kind)
		}
	}
	return ""
}

func describe(addr netip.Addr) string {
	switch {
	case addr.IsLoopback():
		return "a loopback address"
	case addr.IsUnspecified() || thisNetwork.Contains(addr):
		return "an unspecified address"
	case addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast():
		return "a link-local address"
	case addr.Is6() && addr.IsPrivate():
		return "a unique-local address"
	case addr.IsPrivate():
		return "a private (site-local) address"
	case siteLocal.Contains(addr):
		return "a site-local address"
	case carrierNAT.Contains(addr):
		return "a carrier-grade NAT address"
	}
	return ""
}

// BlockedError is a connection that the dial guard refused because the
// address it was about to connect to lies inside the network.
type BlockedError struct {
	// Destination names what was dialled: "destination orders" or
	// "destination orders, oauth2 tokenUrl".
	Destination string
	// Addr is the address the dialer was about to connect to.
	Addr netip.AddrPort
	// Kind is what Describe said of it ("a loopback address"), or why
	// CheckHost could not see an address for Host.
	Kind string
	// Host is the host and port as configured or announced when
	// CheckHost refused it without an address; "" otherwise.
	Host string
}

func (e *BlockedError) Error() string {
	if e.Destination == "" {
		return e.Reason()
	}
	return e.Destination + ": " + e.Reason()
}

// Reason is the text of the error without the destination.
func (e *BlockedError) Reason() string {
	if !e.Addr.IsValid() {
		return fmt.Sprintf("connection to %q refused: it is %s, so its address cannot be checked, and http.blockPrivateAddresses is true", e.Host, e.Kind)
	}
	return fmt.Sprintf("connection to %s refused: it is %s, and http.blockPrivateAddresses is true", e.Addr, e.Kind)
}

// Control returns a net.Dialer Control function that refuses, with a
// *BlockedError, every connection to an address that Describe names. It
// runs after name resolution and before the connect, for each address the
// dialer tries, so it sees the address actually connected to: a DNS
// answer that changes after the start, a lookup that failed at the start
// and a redirect through a proxy's resolver cannot get around it.
// destination names the caller in the error; "" leaves it to the caller.
func Control(destination string) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			// Control only ever sees ip:port; anything else is refused
			// rather than let through unchecked.
			return fmt.Errorf("%s: connection to %q refused: not an IP address and port", destination, address)
		}
		if kind := Describe(ap.Addr()); kind != "" {
			return &BlockedError{Destination: destination, Addr: netip.AddrPortFrom(ap.Addr().WithZone(""), ap.Port()), Kind: kind}
		}
		return nil
	}
}
