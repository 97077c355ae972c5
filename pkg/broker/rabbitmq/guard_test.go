package rabbitmq_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// With BlockPrivateAddresses the publisher never connects to a broker on
// an inside address, whether the URL names it or a name resolves to it:
// the publish is undeliverable (the row goes dead), as an HTTP
// destination's is, and the broker sees no connection. The same broker
// takes the message with the setting off.
func TestBlockPrivateAddressesRefusesTheBroker(t *testing.T) {
	t.Parallel()
	exchange, queue := name(t, "x"), name(t, "q")
	a := newAdmin(t)
	a.exchange(exchange, "topic")
	a.queue(queue, exchange, "#")
	for _, url := range []string{brokerURL(), viaProxy(t, "localhost:5672")} {
		p := newPublisher(t, rabbitmq.Options{Name: "events", URL: url, Exchange: exchange, BlockPrivateAddresses: true})
		err := p.Publish(t.Context(), queuebox.Delivery{Message: row("order.g1"), Body: []byte(`{}`)})
		require.ErrorIs(t, err, queuebox.ErrUndeliverable, url)
		require.ErrorContains(t, err, "rabbitmq destination events: connection to ")
		require.ErrorContains(t, err, "refused: it is a loopback address, and http.blockPrivateAddresses is true")
		require.NotContains(t, err.Error(), "guest:guest", "no password in the reason")
	}
	p := newPublisher(t, rabbitmq.Options{Name: "events", Exchange: exchange})
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: row("order.g2"), Body: []byte(`{}`)}))
	require.Equal(t, 1, a.count(queue), "only the publish with the setting off arrived")
}
