package address_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/address"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestCheckRefusesTheAddressesABrokerKeepsOrRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind address.Kind
		addr string
		want string // "" accepts
	}{
		{address.NATSSubject, "orders.created", ""},
		{address.NATSSubject, "processed.order-1.é", ""},
		{address.NATSSubject, "orders.$x", "starts with $"},
		{address.NATSSubject, "$JS.API.STREAM.PURGE.ORDERS", "starts with $"},
		{address.NATSSubject, "$SYS.REQ.SERVER.PING", "starts with $"},
		{address.NATSSubject, "$KV.bucket.key", "starts with $"},
		{address.NATSSubject, "_INBOX.abc", "_INBOX"},
		{address.NATSSubject, "orders._INBOX", ""},
		{address.NATSSubject, "orders.*", "wildcard"},
		{address.NATSSubject, "orders.>", "wildcard"},
		{address.NATSSubject, "orders.a*b", "wildcard"},
		{address.NATSSubject, ".orders", "empty token"},
		{address.NATSSubject, "orders.", "empty token"},
		{address.NATSSubject, "orders..created", "empty token"},
		{address.NATSSubject, "orders created", "white space"},
		{address.NATSSubject, "orders\tcreated", "control character"},
		{address.NATSSubject, "orders\u00a0created", "white space"},
		{address.NATSSubject, "orders\x00", "control character"},
		{address.NATSSubject, "orders.\xff", "UTF-8"},
		{address.NATSSubject, strings.Repeat("a", 255), ""},
		{address.NATSSubject, strings.Repeat("a", 256), "above the limit of 255"},
		{address.RabbitMQExchange, "orders", ""},
		{address.RabbitMQExchange, "orders events/é", ""},
		{address.RabbitMQExchange, "amq.topic", "amq."},
		{address.RabbitMQExchange, "amq.x", "amq."},
		{address.RabbitMQExchange, "orders\r\n", "control character"},
		{address.RabbitMQExchange, "\xc3", "UTF-8"},
		{address.RabbitMQExchange, strings.Repeat("x", 256), "above the limit of 255"},
		{address.KafkaTopic, "orders.created_v-1", ""},
		{address.KafkaTopic, "__consumer_offsets", "starts with __"},
		{address.KafkaTopic, "__transaction_state", "starts with __"},
		{address.KafkaTopic, "_orders", ""},
		{address.KafkaTopic, ".", "which Kafka refuses"},
		{address.KafkaTopic, "..", "which Kafka refuses"},
		{address.KafkaTopic, "orders/created", "outside"},
		{address.KafkaTopic, "orders created", "outside"},
		{address.KafkaTopic, "é", "outside"},
		{address.KafkaTopic, strings.Repeat("t", 249), ""},
		{address.KafkaTopic, strings.Repeat("t", 250), "limit of 249"},
	}
	for _, c := range cases {
		t.Run(c.addr, func(t *testing.T) {
			t.Parallel()
			err := address.Check(c.kind, c.addr)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.want)
		})
	}
	require.Error(t, address.Check(address.Kind(0), "x"), "an unknown kind is refused")
}

func TestCheckRoutingKeyCapsTheLength(t *testing.T) {
	t.Parallel()
	require.NoError(t, address.CheckRoutingKey(strings.Repeat("k", 255)))
	require.NoError(t, address.CheckRoutingKey("$JS.API.#"), "a routing key only routes inside the exchange")
	require.ErrorContains(t, address.CheckRoutingKey(strings.Repeat("k", 256)), "above the AMQP limit of 255")
}

func TestRefusedIsUndeliverableAndNamesTheDestinationAndTheAddress(t *testing.T) {
	t.Parallel()
	err := address.Refused(`nats destination "events"`, "subject", "$JS.API.STREAM.PURGE.ORDERS", errors.New("why"))
	require.ErrorIs(t, err, queuebox.ErrUndeliverable)
	var u *queuebox.UndeliverableError
	require.ErrorAs(t, err, &u)
	require.Equal(t, `nats destination "events": the rendered subject "$JS.API.STREAM.PURGE.ORDERS" is refused: why`, u.Reason)

	long := address.Refused("d", "topic", strings.Repeat("é", 300)+"\x00", errors.New("why")).Error()
	require.Less(t, len(long), 300, "a long address is cut in the reason")
	require.NotContains(t, long, "\x00")
	require.Contains(t, address.Refused("d", "topic", "a\x00b", errors.New("why")).Error(), `"a\x00b"`)
}

// A literal address is the operator's and is not checked; a placeholder
// or a *From column makes it rendered, and then Refuse checks it.
func TestRefuseChecksOnlyRenderedAddresses(t *testing.T) {
	t.Parallel()
	m := row("$JS.API.STREAM.PURGE.ORDERS", "", "order", `{"s":"$SYS.x"}`)
	cases := []struct {
		tmpl, from string
		rendered   bool
	}{
		{"$JS.API.INFO", "", false},
		{"{{ topic }}", "", true},
		{"x.{{ payload.s }}", "", true},
		{"{{ aggregateType }}", "", true},
		{"ignored", "topic", true},
	}
	for _, c := range cases {
		tpl, err := address.New("test", c.tmpl, c.from)
		require.NoError(t, err)
		require.Equal(t, c.rendered, tpl.Rendered(), c.tmpl)
		addr, err := tpl.Render(m)
		require.NoError(t, err)
		err = tpl.Refuse(address.NATSSubject, addr, "dest", "subject")
		if c.rendered && c.tmpl != "{{ aggregateType }}" {
			require.ErrorIs(t, err, queuebox.ErrUndeliverable, c.tmpl)
			require.ErrorContains(t, err, addr)
		} else {
			require.NoError(t, err, c.tmpl)
		}
	}
}
