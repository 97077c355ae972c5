package glob

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern string
		yes, no []string
	}{
		{"order.*", []string{"order.created", "order.paid"}, []string{"order", "order.item.added", "order.", "orders.created"}},
		{"order.**", []string{"order.created", "order.item.added"}, []string{"order", "orderx.created"}},
		{"**", []string{"anything", "a.b.c", ""}, nil},
		{"order.created", []string{"order.created"}, []string{"order.updated", "order.createdx", "xorder.created"}},
		{"a+b.c-d", []string{"a+b.c-d"}, []string{"aab.c-d", "a+b.cxd"}},
		{"*.created", []string{"order.created"}, []string{"a.b.created", ".created"}},
		{"a.(b)|c", []string{"a.(b)|c"}, []string{"a.b", "c"}},
	}
	for _, tc := range cases {
		p, err := Compile(tc.pattern)
		require.NoError(t, err)
		for _, topic := range tc.yes {
			require.True(t, p.Match(topic), "%q should match %q", tc.pattern, topic)
		}
		for _, topic := range tc.no {
			require.False(t, p.Match(topic), "%q should not match %q", tc.pattern, topic)
		}
	}
}

func TestTripleStarIsRefused(t *testing.T) {
	t.Parallel()
	_, err := Compile("order.***")
	require.ErrorContains(t, err, "***")
}
