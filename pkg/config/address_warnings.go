package config

import (
	"fmt"
	"strings"
)

// addressWarnings reports each broker destination whose whole address
// comes from the row: a *From column, or a template made of placeholders
// only (subject: "{{ topic }}"). The data of the row is the sender's: a
// webhook sender then chooses the whole subject, exchange or topic.
// QueueBox refuses the addresses a broker keeps for itself and sends such
// a row dead, but a fixed prefix keeps the sender inside a namespace of
// the operator's. The check warns; it does not refuse.
func addressWarnings(c *Config) []string {
	var out []string
	for _, name := range sortedKeys(c.Destinations) {
		d := c.Destinations[name]
		path := keyPath{"destinations", name}
		switch d.Kind {
		case KindRabbitMQ:
			out = appendAddressWarning(out, path, "exchange", d.Exchange, "exchangeFrom", d.ExchangeFrom)
		case KindKafka:
			out = appendAddressWarning(out, path, "topic", d.Topic, "topicFrom", d.TopicFrom)
		case KindNATS:
			out = appendAddressWarning(out, path, "subject", d.Subject, "subjectFrom", d.SubjectFrom)
		}
	}
	return out
}

// fastPathWarnings reports each HTTP destination that turns
// http1FastPath off although its baseUrl is not plain http://: the fast
// path never serves such a destination, so the setting changes nothing
// and the operator may have meant another destination.
func fastPathWarnings(c *Config) []string {
	var out []string
	for _, name := range sortedKeys(c.Destinations) {
		d := c.Destinations[name]
		if d.Kind != KindHTTP || d.HTTP1FastPath || strings.HasPrefix(strings.ToLower(strings.TrimSpace(d.BaseURL)), "http://") {
			continue
		}
		out = append(out, fmt.Sprintf("%s is false, but baseUrl is not http://: only a plain http:// destination uses the fast path, so the setting changes nothing",
			keyPath{"destinations", name}.key("http1FastPath")))
	}
	return out
}

func appendAddressWarning(out []string, path keyPath, key, tmpl, fromKey, from string) []string {
	const advice = "the sender of the row chooses the whole address; give it a fixed prefix of your own (for example events.{{ topic }})"
	if from != "" {
		return append(out, fmt.Sprintf("%s is the column %s: %s", path.key(fromKey), from, advice))
	}
	if onlyPlaceholders(tmpl) {
		return append(out, fmt.Sprintf("%s is only the placeholder %s: %s", path.key(key), strings.TrimSpace(tmpl), advice))
	}
	return out
}

// onlyPlaceholders reports whether tmpl holds at least one placeholder and
// no text outside its placeholders.
func onlyPlaceholders(tmpl string) bool {
	names, unclosed := scanTemplate(tmpl)
	if len(names) == 0 || unclosed {
		return false
	}
	rest := tmpl
	for rest != "" {
		open := strings.Index(rest, "{{")
		if open < 0 || strings.TrimSpace(rest[:open]) != "" {
			return strings.TrimSpace(rest) == ""
		}
		end := strings.Index(rest[open:], "}}")
		rest = rest[open+end+2:]
	}
	return true
}
