// Package relay is the inbox relay of queuebox-relay: it claims push rows
// of the inbox and forwards each into the outbox with a fenced write, one
// aggregate row at a time, in creation order.
package relay

import (
	"regexp"
	"strings"
)

var placeholder = regexp.MustCompile(`\{\{\s*(source|eventType)\s*\}\}`)

// RenderTopic renders a source topic template: {{ source }} and
// {{ eventType }}, with or without the inner spaces. Other text stays as
// it is. The result is trimmed.
func RenderTopic(template, source, eventType string) string {
	out := placeholder.ReplaceAllStringFunc(template, func(m string) string {
		if placeholder.FindStringSubmatch(m)[1] == "source" {
			return source
		}
		return eventType
	})
	return strings.TrimSpace(out)
}

// LacksEventType reports whether template reads {{ eventType }} while
// eventType is blank. Such a topic renders with a hole ("webhook." from
// "webhook.{{ eventType }}") that no route meant; the relay marks the row
// dead rather than deliver it under a topic nobody chose.
func LacksEventType(template, eventType string) bool {
	if strings.TrimSpace(eventType) != "" {
		return false
	}
	for _, m := range placeholder.FindAllStringSubmatch(template, -1) {
		if m[1] == "eventType" {
			return true
		}
	}
	return false
}
