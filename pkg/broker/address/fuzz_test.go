package address_test

import (
	"testing"

	"github.com/alternayte/queuebox/pkg/broker/address"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// FuzzAddress renders any address and routing key template over any row:
// neither panics, an accepted address template never renders an empty
// address without an error, and a template without braces renders as it
// is.
func FuzzAddress(f *testing.F) {
	f.Add("orders.{{ aggregateType }}.{{ payload.region }}", "order.created", "k", `{"region":"eu"}`)
	f.Add("{{ topic }}", "", "", `[]`)
	f.Add("{{ payload.a.b.c }}", "t", "", `{"a":{"b":{"c":1.5e300}}}`)
	f.Add("{{", "t", "k", `not json`)
	f.Add("plain", "t", "k", `{}`)
	f.Fuzz(func(t *testing.T, tmpl, topic, key, payload string) {
		m := &queuebox.OutboxMessage{ID: "id-1", Topic: topic, Key: key, HasKey: key != "",
			AggregateType: "order", Payload: []byte(payload)}
		if tpl, err := address.New("fuzz", tmpl, ""); err == nil {
			out, err := tpl.Render(m)
			if err == nil && out == "" {
				t.Fatalf("template %q rendered an empty address without an error", tmpl)
			}
		}
		_ = address.NewKey(tmpl).Render(m, "default")
		_ = address.RoutingKey(queuebox.Delivery{Message: m, RoutingKeyTemplate: &tmpl}, address.NewKey("{{ key }}"))
	})
}
