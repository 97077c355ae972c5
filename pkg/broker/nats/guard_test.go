package nats_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// With BlockPrivateAddresses the publisher never connects to a server on
// an inside address, whether the URL names it or a name resolves to it:
// the publish is undeliverable (the row goes dead), as an HTTP
// destination's is, and the stream receives nothing. The same server
// takes the message with the setting off.
func TestBlockPrivateAddressesRefusesTheServer(t *testing.T) {
	t.Parallel()
	_, js := natstest.Connect(t, natstest.URL())
	s, prefix := natstest.Stream(t, js)
	byName := strings.Replace(natstest.URL(), "127.0.0.1", "localhost", 1)
	for _, servers := range []string{natstest.URL(), byName} {
		p := publisher(t, natsb.Options{Name: "events", Conn: natsb.Conn{Servers: servers}, Subject: prefix + ".g", BlockPrivateAddresses: true})
		var err error
		// The client dials in the background; the first publish may come
		// before its first refused connect, and fails as not connected.
		require.Eventually(t, func() bool {
			err = p.Publish(t.Context(), queuebox.Delivery{Message: row("0190a0a0-0000-7000-8000-0000000000b1"), Body: []byte(`{}`)})
			return err != nil && strings.Contains(err.Error(), "refused")
		}, 30*time.Second, 20*time.Millisecond, "the last error: %v", err)
		require.ErrorIs(t, err, queuebox.ErrUndeliverable, servers)
		require.ErrorContains(t, err, "nats destination events: connection to ")
		require.ErrorContains(t, err, "refused: it is a loopback address, and http.blockPrivateAddresses is true")
	}
	require.Empty(t, natstest.Messages(t, s))

	p := publisher(t, natsb.Options{Name: "events", Subject: prefix + ".g"})
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: row("0190a0a0-0000-7000-8000-0000000000b2"), Body: []byte(`{}`)}))
	require.Len(t, natstest.Messages(t, s), 1)
}
