package netguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/netguard"
)

func TestControlRefusesInsideAddresses(t *testing.T) {
	t.Parallel()
	control := netguard.Control("destination orders")
	for _, address := range []string{
		"127.0.0.1:443", "[::1]:80", "10.1.2.3:80", "169.254.169.254:80", "[fe80::1%eth0]:80",
		"100.64.0.1:80", "[::ffff:127.0.0.1]:80", "[::ffff:169.254.169.254]:80", "[64:ff9b::a9fe:a9fe]:80",
		"[fd00::1]:80", "0.0.0.0:80", "not-an-address",
	} {
		err := control("tcp", address, nil)
		require.Error(t, err, address)
		require.Contains(t, err.Error(), "destination orders", address)
	}
	err := control("tcp", "[::ffff:169.254.169.254]:80", nil)
	var blocked *netguard.BlockedError
	require.ErrorAs(t, err, &blocked)
	require.Equal(t, "destination orders: connection to [::ffff:169.254.169.254]:80 refused: it is a link-local address, and http.blockPrivateAddresses is true", err.Error())
	for _, address := range []string{"93.184.216.34:443", "[2001:4860:4860::8888]:443", "8.8.8.8:53"} {
		require.NoError(t, control("tcp", address, nil), address)
	}
}

// A Dialer refuses an inside address before it connects and remembers the
// refusal (the test cannot reach an address outside, so the forgetting on
// a connect is left to the broker tests).
func TestDialerRemembersTheLastRefusal(t *testing.T) {
	t.Parallel()
	d := netguard.NewDialer("nats destination orders", 5*time.Second)
	require.Nil(t, d.Blocked())
	_, err := d.Dial("tcp", "127.0.0.1:4222")
	var blocked *netguard.BlockedError
	require.ErrorAs(t, err, &blocked)
	require.Equal(t, "nats destination orders", blocked.Destination)
	require.Equal(t, "a loopback address", blocked.Kind)
	require.Same(t, blocked, d.Blocked())
	_, err = d.DialContext(context.Background(), "tcp", "[::ffff:10.0.0.1]:4222")
	require.ErrorAs(t, err, &blocked)
	require.Equal(t, "a private (site-local) address", d.Blocked().Kind)
}
