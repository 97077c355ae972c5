package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIsDefinitePath(t *testing.T) {
	t.Parallel()
	definite := []string{
		"$", "$.id", "$.data.object.customer", "$.items[0]", "$.items[0].id", `$["id"]`, `$['id']`,
		`$["a.b"].c`, `$.headers."x-tenant"`, `$['it\'s']`, "$.a-b", "$.$type", "$[12][3]",
	}
	for _, p := range definite {
		require.True(t, IsDefinitePath(p), p)
	}
	indefinite := []string{
		"", "id", "data.id", "$..id", "$.a..b", "$.*", "$.items[*]", "$[*]", "$.items[?(@.x)]",
		"$.items[0:2]", "$.items[:1]", "$.items[0,1]", "$['a','b']", "$.", "$[", "$[0", "$['a'", `$."a`,
		"$.a b", "$[-1]", "$.a[]", "@.id", "$.a()", "$[ 0 ]",
	}
	for _, p := range indefinite {
		require.False(t, IsDefinitePath(p), p)
	}
}
