package admin_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The result of the test route is bounded: a big result fails inside the
// clamp instead of being built, encoded and sent.
func TestTransformTestBoundsTheResult(t *testing.T) {
	t.Parallel()
	cfg := enabled()
	// A timeout no busy machine reaches: the size bound, not the clock,
	// must stop both expressions.
	cfg.MaxPayloadBytes, cfg.MaxTransformTimeout = 65536, time.Minute
	post := transformTest(t, cfg)
	for _, expression := range []string{
		`[1..200000].("0123456789")`, // 2.4 MB of JSON from a small range
		`$pad("", 2000000, "x")`,     // one 2 MB string
	} {
		code, out := post(`{"expression":`+quote(expression)+`,"payload":{},"timeoutMs":60000}`, authz...)
		require.Equal(t, http.StatusBadRequest, code, expression)
		require.Equal(t, false, out["success"])
		require.Contains(t, out["error"], "exceeds the limit of 1048576", expression)
	}
	code, out := post(`{"expression":"[1..1000]","payload":{}}`, authz...)
	require.Equal(t, http.StatusOK, code, out)
}

func quote(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		if r == '"' || r == '\\' {
			b = append(b, '\\')
		}
		b = append(b, string(r)...)
	}
	return string(append(b, '"'))
}
