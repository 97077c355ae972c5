package address

import "github.com/alternayte/queuebox/pkg/queuebox"

// DefaultRoutingKey is the routing key template of a RabbitMQ destination
// that sets none.
const DefaultRoutingKey = "{{ topic }}"

// Key is a compiled routing key template: the RabbitMQ routing key or the
// Kafka record key. Unlike an address, it never fails: a placeholder with
// another name, and a field the row does not hold, render the
// missing-field default.
type Key struct {
	parts []part
}

// NewKey compiles a routing key template.
func NewKey(tmpl string) Key { return Key{parts: compile(tmpl)} }

// Render returns the key of m; missing is the route's
// routingKeyMissingFieldDefault.
func (k Key) Render(m *queuebox.OutboxMessage, missing string) string {
	return Template{parts: k.parts}.render(m, missing)
}

// RoutingKey returns the key of one delivery: the matched route's
// routingKeyTemplate when it sets one (compiled per call: routes are few
// and the template is short), else the destination's own template. The
// route's routingKeyMissingFieldDefault fills the missing placeholders.
func RoutingKey(d queuebox.Delivery, destination Key) string {
	if d.RoutingKeyTemplate != nil {
		return NewKey(*d.RoutingKeyTemplate).Render(d.Message, d.MissingFieldDefault)
	}
	return destination.Render(d.Message, d.MissingFieldDefault)
}
