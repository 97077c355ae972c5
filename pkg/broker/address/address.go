// Package address renders the templates that name where a broker
// publisher sends a row: the address templates of a RabbitMQ exchange, a
// Kafka topic and a NATS subject, the *From settings that read a column
// instead, and the routing key templates (the RabbitMQ routing key and the
// Kafka record key). The contract is page 32 of the reference
// ("Transforms and templates"). Every value here is immutable and safe for
// concurrent use.
package address

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// part is one piece of a compiled template: literal text, or a
// placeholder (name, or a field path below the payload).
type part struct {
	text  string
	name  string   // topic, key, aggregateType; "" for text and fields
	field []string // the path below payload. or data.; nil otherwise
	// unknown is a placeholder with another name (routing keys render the
	// missing-field default for it).
	unknown bool
}

func (p part) literal() bool { return p.name == "" && p.field == nil && !p.unknown }

// compile splits a template into parts. {{ name }} and {{name}} are the
// same placeholder; text after an unclosed "{{" stays as it is.
func compile(tmpl string) []part {
	var parts []part
	rest := tmpl
	for {
		open := strings.Index(rest, "{{")
		end := -1
		if open >= 0 {
			end = strings.Index(rest[open+2:], "}}")
		}
		if open < 0 || end < 0 {
			if rest != "" {
				parts = append(parts, part{text: rest})
			}
			return parts
		}
		if open > 0 {
			parts = append(parts, part{text: rest[:open]})
		}
		parts = append(parts, placeholder(strings.TrimSpace(rest[open+2:open+2+end])))
		rest = rest[open+2+end+2:]
	}
}

func placeholder(name string) part {
	switch name {
	case "topic", "key", "aggregateType":
		return part{name: name}
	}
	for _, root := range []string{"payload.", "data."} {
		if field, ok := strings.CutPrefix(name, root); ok && validPath(field) {
			return part{field: strings.Split(field, ".")}
		}
	}
	return part{unknown: true, text: name}
}

func validPath(field string) bool {
	for _, seg := range strings.Split(field, ".") {
		if seg == "" || strings.ContainsAny(seg, " \t\r\n{}") {
			return false
		}
	}
	return true
}

// column returns the value of a placeholder name for m.
func column(name string, m *queuebox.OutboxMessage) string {
	switch name {
	case "topic":
		return m.Topic
	case "key":
		return m.Key
	default:
		return m.AggregateType
	}
}

// payload decodes the row's payload once per render, on first use.
type payload struct {
	raw     []byte
	doc     any
	decoded bool
}

// lookup returns the text of the field at path, and false when the
// payload holds no value there (or only null). A string renders as it is,
// anything else as its JSON text.
func (p *payload) lookup(path []string) (string, bool) {
	if !p.decoded {
		p.decoded = true
		if err := json.Unmarshal(p.raw, &p.doc); err != nil {
			p.doc = nil
		}
	}
	v := p.doc
	for _, seg := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		if v, ok = obj[seg]; !ok {
			return "", false
		}
	}
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	default:
		b, err := json.Marshal(x)
		return string(b), err == nil
	}
}

// Template is a compiled address template: the exchange, Kafka topic or
// NATS subject of a destination.
type Template struct {
	parts []part
	// from is the column that exchangeFrom, topicFrom or subjectFrom names;
	// it wins over the template.
	from string
}

// New compiles an address template, or, when from is set, reads the
// column from (aggregate_type, topic or key) instead. The configuration
// already refused other placeholders and columns; New checks again so
// that a Config built in code gets the same answer. what names the
// setting in the error (destinations.orders.exchange).
func New(what, tmpl, from string) (Template, error) {
	switch from {
	case "", "aggregate_type", "topic", "key":
	default:
		return Template{}, fmt.Errorf("%s: the column %q is not aggregate_type, topic or key", what, from)
	}
	t := Template{parts: compile(tmpl), from: from}
	for _, p := range t.parts {
		if p.unknown {
			return Template{}, fmt.Errorf("%s: {{ %s }} is not an address placeholder", what, p.text)
		}
	}
	return t, nil
}

// Render returns the address of m. A placeholder whose field the payload
// does not hold renders empty. An empty address is an error: the publish
// of that row fails and takes the retry path.
func (t Template) Render(m *queuebox.OutboxMessage) (string, error) {
	var out string
	if t.from != "" {
		out = fromColumn(t.from, m)
	} else {
		out = t.render(m, "")
	}
	if out == "" {
		return "", fmt.Errorf("the address of the row renders empty")
	}
	return out, nil
}

func fromColumn(col string, m *queuebox.OutboxMessage) string {
	switch col {
	case "aggregate_type":
		return m.AggregateType
	case "topic":
		return m.Topic
	default:
		return m.Key
	}
}

// render joins the parts; missing stands for a placeholder that finds no
// value (and for an unknown name).
func (t Template) render(m *queuebox.OutboxMessage, missing string) string {
	var b strings.Builder
	doc := payload{raw: m.Payload}
	for _, p := range t.parts {
		switch {
		case p.literal():
			b.WriteString(p.text)
		case p.unknown:
			b.WriteString(missing)
		case p.field != nil:
			v, ok := doc.lookup(p.field)
			if !ok {
				v = missing
			}
			b.WriteString(v)
		default:
			v := column(p.name, m)
			if v == "" && p.name != "topic" {
				v = missing
			}
			b.WriteString(v)
		}
	}
	return b.String()
}
