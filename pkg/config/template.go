package config

import (
	"strings"
	"unicode"
)

// TemplatePlaceholders returns the names inside the {{ ... }} placeholders
// of tmpl, trimmed and in order: "orders.{{ topic }}.{{payload.region}}"
// gives [topic payload.region]. Text after an unclosed "{{" holds no
// placeholder. The function is safe for concurrent use.
func TemplatePlaceholders(tmpl string) []string {
	names, _ := scanTemplate(tmpl)
	return names
}

// scanTemplate returns the placeholder names and whether a "{{" has no
// closing "}}".
func scanTemplate(tmpl string) (names []string, unclosed bool) {
	rest := tmpl
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			return names, false
		}
		body := rest[open+2:]
		end := strings.Index(body, "}}")
		if end < 0 {
			return names, true
		}
		names = append(names, strings.TrimSpace(body[:end]))
		rest = body[end+2:]
	}
}

// usesPlaceholder reports whether tmpl holds the placeholder name.
func usesPlaceholder(tmpl, name string) bool {
	for _, n := range TemplatePlaceholders(tmpl) {
		if n == name {
			return true
		}
	}
	return false
}

// isAddressPlaceholder reports whether an exchange, Kafka topic or NATS
// subject template may use name: topic, key, aggregateType, or a field path
// below payload or data.
func isAddressPlaceholder(name string) bool {
	switch name {
	case "topic", "key", "aggregateType":
		return true
	}
	for _, root := range []string{"payload.", "data."} {
		if field, ok := strings.CutPrefix(name, root); ok {
			return isFieldPath(field)
		}
	}
	return false
}

// isFieldPath accepts dot-separated names with no blank segment and no
// white space or brace inside.
func isFieldPath(field string) bool {
	for _, seg := range strings.Split(field, ".") {
		if seg == "" || strings.IndexFunc(seg, func(r rune) bool {
			return unicode.IsSpace(r) || r == '{' || r == '}'
		}) >= 0 {
			return false
		}
	}
	return true
}

// addressPlaceholders is the list that an error message offers.
const addressPlaceholders = "{{ topic }}, {{ key }}, {{ aggregateType }}, {{ payload.<field> }} or {{ data.<field> }}"

// checkAddressTemplate reports each placeholder of an address template that
// QueueBox cannot render. The message names the field and the destination.
func checkAddressTemplate(ps *problems, path keyPath, tmpl, destination string) {
	names, unclosed := scanTemplate(tmpl)
	for _, n := range names {
		if !isAddressPlaceholder(n) {
			ps.add(path, "the placeholder {{ %s }} of destination %s is not an address placeholder; use %s", n, destination, addressPlaceholders)
		}
	}
	if unclosed {
		ps.add(path, "a {{ in the template of destination %s has no closing }}", destination)
	}
}

// addressColumns are the row columns that exchangeFrom, topicFrom and
// subjectFrom may name, spelled as the columns are.
var addressColumns = []string{"aggregate_type", "topic", "key"}
