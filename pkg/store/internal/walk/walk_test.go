package walk

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Both dialects hand Advance the lanes of a claim in whatever order the
// database returned them; the cursor must land on the last lane the walk
// reached, by key and then destination.
func TestAdvanceOrdersLanesByKeyThenDestination(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		old   Lane
		lanes []Lane
		want  Lane
	}{
		{"the last lane after the cursor", Lane{}, []Lane{{"b", "x"}, {"a", "z"}, {"b", "y"}}, Lane{"b", "y"}},
		{"a later destination of the cursor's key", Lane{"a", "m"}, []Lane{{"a", "n"}}, Lane{"a", "n"}},
		{"a wrapped walk ends before the cursor", Lane{"b", "m"}, []Lane{{"c", "a"}, {"a", "z"}, {"b", "a"}}, Lane{"b", "a"}},
		{"unkeyed rows move nothing", Lane{"b", "m"}, []Lane{{"", ""}, {"", "dest"}}, Lane{"b", "m"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var w Walk
			w.cursor = tc.old
			w.Advance(tc.old, tc.lanes)
			got, _ := w.Next()
			require.Equal(t, tc.want, got)
		})
	}
}

func TestNextAlternatesTheClassThatComesFirst(t *testing.T) {
	t.Parallel()
	var w Walk
	_, first := w.Pick("keyed", "unkeyed")
	_, second := w.Pick("keyed", "unkeyed")
	require.ElementsMatch(t, []string{"keyed", "unkeyed"}, []string{first, second})
}
