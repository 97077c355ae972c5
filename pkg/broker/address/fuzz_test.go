package address_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

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

// FuzzCheck checks any address by the rules of every kind: Check never
// panics, an accepted address is one that the broker takes (within its
// cap, no reserved prefix, no wildcard or empty NATS token, only Kafka's
// characters), and the reason of a refused one is valid UTF-8 with no
// control character.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"orders.created", "$JS.API.STREAM.PURGE.X", "_INBOX.x", "a..b", "a.>", "amq.x",
		"__consumer_offsets", "..", "é\x00\xff", strings.Repeat("a", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		if address.Check(address.NATSSubject, addr) == nil {
			for _, tok := range strings.Split(addr, ".") {
				if tok == "" || tok[0] == '$' || strings.ContainsAny(tok, "*> \t\r\n\x00") {
					t.Fatalf("subject %q accepted", addr)
				}
			}
			if len(addr) > address.MaxNATSSubject || strings.HasPrefix(addr, "_INBOX.") || !utf8.ValidString(addr) {
				t.Fatalf("subject %q accepted", addr)
			}
		}
		if address.Check(address.RabbitMQExchange, addr) == nil &&
			(strings.HasPrefix(addr, "amq.") || len(addr) > address.MaxExchange || !utf8.ValidString(addr)) {
			t.Fatalf("exchange %q accepted", addr)
		}
		if address.Check(address.KafkaTopic, addr) == nil &&
			(strings.HasPrefix(addr, "__") || len(addr) > address.MaxKafkaTopic || addr == "." || addr == ".." ||
				strings.Trim(addr, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "") {
			t.Fatalf("topic %q accepted", addr)
		}
		reason := address.Refused("d", "subject", addr, errors.New("why")).Error()
		if !utf8.ValidString(reason) || strings.ContainsFunc(reason, unicode.IsControl) {
			t.Fatalf("reason %q holds a control character or invalid UTF-8", reason)
		}
	})
}
