package webhook_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The documented cap (docs/security.md), as literals.
const (
	maxStoredHeaders     = 64
	maxStoredHeaderBytes = 16384
)

// A row stores a bounded number of headers and header bytes; a request
// past the cap gets 431 and stores nothing.
func TestStoredHeadersAreCapped(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	var many []string
	for i := range maxStoredHeaders + 1 {
		many = append(many, fmt.Sprintf("X-H%d", i), "v")
	}
	requireAnswer(t, ev.post("/inbox/s", `{"id":"1"}`, many...), 431,
		fmt.Sprintf(`{"error":"Request headers exceed %d headers"}`, maxStoredHeaders))
	requireAnswer(t, ev.post("/inbox/s", `{"id":"2"}`, "X-Big", strings.Repeat("a", maxStoredHeaderBytes)), 431,
		fmt.Sprintf(`{"error":"Request headers exceed %d bytes"}`, maxStoredHeaderBytes))
	require.Empty(t, ev.mem.Rows())

	require.Equal(t, 202, ev.post("/inbox/s", `{"id":"3"}`, "X-Big", strings.Repeat("a", maxStoredHeaderBytes/2)).Code)
}
