package relay_test

import (
	"strings"
	"testing"

	"github.com/alternayte/queuebox/pkg/relay"
)

// FuzzTopic renders any topic template: a template without a placeholder
// renders as it is (trimmed), and "{{ eventType }}" alone renders the
// event type.
func FuzzTopic(f *testing.F) {
	f.Add("stripe.{{ eventType }}", "stripe", "payment.completed")
	f.Add("{{source}}.{{ eventType }}", "s", "")
	f.Add("{{ eventType }}", "s", " \x01evt ")
	f.Add("{{ other }}", "s", "e")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, template, source, eventType string) {
		out := relay.RenderTopic(template, source, eventType)
		if !strings.Contains(template, "{{") && out != strings.TrimSpace(template) {
			t.Fatalf("RenderTopic(%q) = %q without a placeholder", template, out)
		}
		if got := relay.RenderTopic("{{ eventType }}", source, eventType); got != strings.TrimSpace(eventType) {
			t.Fatalf("{{ eventType }} rendered %q for %q", got, eventType)
		}
	})
}
