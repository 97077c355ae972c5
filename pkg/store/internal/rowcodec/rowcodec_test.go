package rowcodec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompactJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"amount": 42, "orderId": "1001"}`:    `{"amount":42,"orderId":"1001"}`,
		`{"note": "two  spaces", "n": [1, 2]}`: `{"note":"two  spaces","n":[1,2]}`,
		`"a string"`:                           `"a string"`,
		`not json, left as it is`:              `not json, left as it is`,
	} {
		require.Equal(t, want, string(CompactJSON(in)), in)
	}
}
