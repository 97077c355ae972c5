package netguard_test

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/netguard"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		want string
	}{
		{"8.8.8.8", ""},
		{"93.184.216.34", ""},
		{"2001:4860:4860::8888", ""},
		{"127.0.0.1", "a loopback address"},
		{"127.8.9.10", "a loopback address"},
		{"::1", "a loopback address"},
		{"10.0.0.1", "a private (site-local) address"},
		{"172.16.0.1", "a private (site-local) address"},
		{"172.31.255.255", "a private (site-local) address"},
		{"172.32.0.1", ""},
		{"192.168.1.1", "a private (site-local) address"},
		{"169.254.169.254", "a link-local address"},
		{"fe80::1", "a link-local address"},
		{"fe80::1%eth0", "a link-local address"},
		{"224.0.0.251", "a link-local address"}, // link-local multicast
		{"fc00::1", "a unique-local address"},
		{"fd12:3456::1", "a unique-local address"},
		{"fec0::1", "a site-local address"},
		{"100.64.0.1", "a carrier-grade NAT address"},
		{"100.127.255.254", "a carrier-grade NAT address"},
		{"100.128.0.1", ""},
		{"0.0.0.0", "an unspecified address"},
		{"0.1.2.3", "an unspecified address"},
		{"::", "an unspecified address"},
		{"::ffff:10.0.0.1", "a private (site-local) address"},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::a00:1", "the NAT64 form of 10.0.0.1, a private (site-local) address"},
		{"64:ff9b::808:808", ""},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, netguard.Describe(netip.MustParseAddr(tc.addr)))
		})
	}
}

func TestCheckHost(t *testing.T) {
	t.Parallel()
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "inside.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.7")}, nil
		case "outside.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		}
		return nil, errors.New("no such host")
	}
	for _, tc := range []struct{ hostport, want string }{
		{"inside.example:9092", "kafka destination orders: connection to 10.0.0.7:9092 refused: it is a private (site-local) address, and http.blockPrivateAddresses is true"},
		{"127.0.0.1:9092", "kafka destination orders: connection to 127.0.0.1:9092 refused: it is a loopback address, and http.blockPrivateAddresses is true"},
		{"[::1]:9093", "kafka destination orders: connection to [::1]:9093 refused: it is a loopback address, and http.blockPrivateAddresses is true"},
		{"outside.example:9092", ""},
		{"127.1:9092", "kafka destination orders: connection to 127.0.0.1:9092 refused: it is a loopback address, and http.blockPrivateAddresses is true"},
		{"2130706433:9092", "kafka destination orders: connection to 127.0.0.1:9092 refused: it is a loopback address, and http.blockPrivateAddresses is true"},
		{"0x7f000001:9092", "kafka destination orders: connection to 127.0.0.1:9092 refused: it is a loopback address, and http.blockPrivateAddresses is true"},
		{"0xa.0.0.7:9092", "kafka destination orders: connection to 10.0.0.7:9092 refused: it is a private (site-local) address, and http.blockPrivateAddresses is true"},
		{"unknown.example:9092", `kafka destination orders: connection to "unknown.example:9092" refused: it is a name that Go cannot resolve, so its address cannot be checked, and http.blockPrivateAddresses is true`},
		{"no port", `kafka destination orders: connection to "no port" refused: it is not a host and port, so its address cannot be checked, and http.blockPrivateAddresses is true`},
	} {
		got := netguard.CheckHost(context.Background(), "kafka destination orders", tc.hostport, lookup)
		if tc.want == "" {
			require.Nil(t, got, tc.hostport)
			continue
		}
		require.NotNil(t, got, tc.hostport)
		require.Equal(t, tc.want, got.Error())
	}
}

// ParseHost reads every address form that inet_aton, and so librdkafka's
// getaddrinfo, connects to, and no name.
func TestParseHost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ host, want string }{
		{"127.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0X7F.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"10.0xff.0377.1", "10.255.255.1"},
		{"0", "0.0.0.0"},
		{"::1", "::1"},
		{"[::1]", "::1"},
		{"localhost", ""},
		{"kafka.example", ""},
		{"1.2.3.example", ""},
		{"256.1.1.1", ""},
		{"1.2.3.256", ""},
		{"1.16777216", ""},
		{"4294967296", ""},
		{"08.1.1.1", ""},
		{"1..1", ""},
		{"1.2.3.4.5", ""},
		{"+1.2.3.4", ""},
		{"", ""},
	} {
		got, ok := netguard.ParseHost(tc.host)
		if tc.want == "" {
			require.False(t, ok, "%q read as %s", tc.host, got)
			continue
		}
		require.True(t, ok, tc.host)
		require.Equal(t, tc.want, got.String(), tc.host)
	}
}
