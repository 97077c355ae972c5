package relay_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/relay"
)

func TestRenderTopic(t *testing.T) {
	t.Parallel()
	cases := []struct{ template, eventType, want string }{
		{"{{ eventType }}", "payment.succeeded", "payment.succeeded"},
		{"webhook.{{eventType}}", "push", "webhook.push"},
		{"{{ source }}.{{ eventType }}", "created", "stripe.created"},
		{"{{ eventType }}", "", ""},
		{"webhook.{{ eventType }}", "", "webhook."},
		{" fixed ", "", "fixed"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, relay.RenderTopic(tc.template, "stripe", tc.eventType), tc.template)
	}
}

// TestLacksEventType: a template that reads {{ eventType }} needs an event
// type; a template that does not is whole without one.
func TestLacksEventType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		template, eventType string
		want                bool
	}{
		{"webhook.{{ eventType }}", "", true},
		{"webhook.{{eventType}}", "  ", true},
		{"{{ source }}.{{ eventType }}", "", true},
		{"webhook.{{ eventType }}", "push", false},
		{"{{ source }}", "", false},
		{"fixed.topic", "", false},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, relay.LacksEventType(tc.template, tc.eventType), "%q with %q", tc.template, tc.eventType)
	}
}
