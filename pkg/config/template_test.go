package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTemplatePlaceholders(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"orders":                             nil,
		"{{ topic }}":                        {"topic"},
		"{{topic}}.{{  key  }}":              {"topic", "key"},
		"events.{{ payload.region }}.v1":     {"payload.region"},
		"a.{{ data.customer.tier }}.{{ x }}": {"data.customer.tier", "x"},
		"open {{ topic":                      nil,
		"{{ topic }} then {{ unclosed":       {"topic"},
		"{{}}":                               {""},
	}
	for tmpl, want := range cases {
		require.Equal(t, want, TemplatePlaceholders(tmpl), tmpl)
	}
}

func TestAddressPlaceholders(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"topic", "key", "aggregateType", "payload.region", "data.a.b.c", "payload.a-b"} {
		require.True(t, isAddressPlaceholder(ok), ok)
	}
	for _, bad := range []string{"", "source", "eventType", "aggregate_type", "Topic", "payload", "payload.", "data..a", "payload.a b", "region"} {
		require.False(t, isAddressPlaceholder(bad), bad)
	}
}
