package address_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/address"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func row(topic, key, aggType, payload string) *queuebox.OutboxMessage {
	return &queuebox.OutboxMessage{ID: "id-1", Topic: topic, Key: key, HasKey: key != "", AggregateType: aggType,
		Payload: []byte(payload)}
}

// The forms of the routing key contract table of page 32, with "dflt" as
// the missing-field default.
func TestRoutingKeyContract(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tmpl, payload, topic, want string
	}{
		{"{{ topic }}", `{}`, "orders.created", "orders.created"},
		{"{{topic}}", `{}`, "orders.created", "orders.created"},
		{"{{ payload.region }}", `{"region":"eu"}`, "any", "eu"},
		{"{{ data.customer.region }}", `{"customer":{"region":"de"}}`, "any", "de"},
		{"{{ payload.missingField }}", `{"region":"eu"}`, "any", "dflt"},
		{"{{ region }}", `{"region":"eu"}`, "any", "dflt"},
		// Beyond the table: mixed text, the other columns, nested values.
		{"{{ payload.region }}.{{ topic }}", `{"region":"eu"}`, "orders.created", "eu.orders.created"},
		{"{{ payload.region }}.{{ topic }}", `{}`, "orders.created", "dflt.orders.created"},
		{"{{ key }}/{{ aggregateType }}", `{}`, "t", "k-1/Order"},
		{"{{ payload.n }}", `{"n":12.5}`, "t", "12.5"},
		{"{{ payload.flag }}", `{"flag":true}`, "t", "true"},
		{"{{ payload.o }}", `{"o":{"a":[1,2]}}`, "t", `{"a":[1,2]}`},
		{"{{ payload.nothing }}", `{"nothing":null}`, "t", "dflt"},
		{"{{ payload.a.b }}", `{"a":"not an object"}`, "t", "dflt"},
		{"{{ payload.a }}", `not json`, "t", "dflt"},
		{"plain", `{}`, "t", "plain"},
		{"open {{ topic", `{}`, "t", "open {{ topic"},
	}
	for _, tc := range cases {
		t.Run(tc.tmpl, func(t *testing.T) {
			t.Parallel()
			got := address.NewKey(tc.tmpl).Render(row(tc.topic, "k-1", "Order", tc.payload), "dflt")
			require.Equal(t, tc.want, got)
		})
	}
}

func TestRoutingKeyOfAKeylessRowRendersTheDefault(t *testing.T) {
	t.Parallel()
	require.Equal(t, "none", address.NewKey("{{ key }}").Render(row("t", "", "", `{}`), "none"))
	require.Equal(t, "", address.NewKey("{{ key }}").Render(row("t", "", "", `{}`), ""))
}

func TestRouteTemplateWinsOverTheDestinations(t *testing.T) {
	t.Parallel()
	dest := address.NewKey(address.DefaultRoutingKey)
	m := row("orders.created", "", "", `{"region":"eu"}`)
	route := "{{ payload.region }}.{{ payload.zone }}"
	require.Equal(t, "orders.created", address.RoutingKey(queuebox.Delivery{Message: m}, dest))
	require.Equal(t, "eu.unknown", address.RoutingKey(queuebox.Delivery{Message: m, RoutingKeyTemplate: &route,
		MissingFieldDefault: "unknown"}, dest))
}

func TestAddressTemplates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tmpl, from, payload, want string
	}{
		{"{{ topic }}", "", `{}`, "orders.created"},
		{"events.{{aggregateType}}", "", `{}`, "events.Order"},
		{"by-key.{{ key }}", "", `{}`, "by-key.k-1"},
		{"{{ payload.tenant }}.orders", "", `{"tenant":"acme"}`, "acme.orders"},
		{"{{ data.tenant.id }}", "", `{"tenant":{"id":7}}`, "7"},
		{"x.{{ payload.list }}", "", `{"list":[1,"a"]}`, `x.[1,"a"]`},
		{"x.{{ payload.missing }}", "", `{}`, "x."},
		{"ignored {{ topic }}", "aggregate_type", `{}`, "Order"},
		{"", "topic", `{}`, "orders.created"},
		{"", "key", `{}`, "k-1"},
	}
	for _, tc := range cases {
		t.Run(tc.tmpl+"|"+tc.from, func(t *testing.T) {
			t.Parallel()
			tmpl, err := address.New("destinations.d.exchange", tc.tmpl, tc.from)
			require.NoError(t, err)
			got, err := tmpl.Render(row("orders.created", "k-1", "Order", tc.payload))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestAnEmptyAddressFailsThePublish(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ tmpl, from string }{
		{"{{ payload.missing }}", ""},
		{"{{ key }}", ""},
		{"", "aggregate_type"},
	} {
		tmpl, err := address.New("destinations.d.subject", tc.tmpl, tc.from)
		require.NoError(t, err)
		_, err = tmpl.Render(row("t", "", "", `{}`))
		require.ErrorContains(t, err, "renders empty", "%+v", tc)
	}
}

func TestAddressRefusesWhatTheConfigurationRefuses(t *testing.T) {
	t.Parallel()
	_, err := address.New("destinations.d.exchange", "{{ region }}", "")
	require.ErrorContains(t, err, "destinations.d.exchange: {{ region }} is not an address placeholder")
	_, err = address.New("destinations.d.exchange", "", "aggregateType")
	require.ErrorContains(t, err, `the column "aggregateType" is not aggregate_type, topic or key`)
}
