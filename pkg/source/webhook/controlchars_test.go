package webhook_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// An event type becomes a topic and an aggregate id a key: a control
// character in either is refused with 400 naming the field.
func TestControlCharactersInAttributesAreRefused(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	requireAnswer(t, ev.post("/inbox/s", `{"id":"1","type":"order.\r\ncreated"}`), 400,
		`{"error":"Event type at $.type holds a control character"}`)
	requireAnswer(t, ev.post("/inbox/s", `{"id":"2","customer":"c\u0001"}`), 400,
		`{"error":"Aggregate id at $.customer holds a control character"}`)
	requireAnswer(t, ev.post("/inbox/s", `{"id":"3","type":"x\u007f"}`), 400,
		`{"error":"Event type at $.type holds a control character"}`)
	requireAnswer(t, ev.post("/inbox/s", `{"id":"4","type":"x\u0085"}`), 400,
		`{"error":"Event type at $.type holds a control character"}`)
	require.Empty(t, ev.mem.Rows())
	require.Equal(t, 202, ev.post("/inbox/s", `{"id":"5","type":"order.créé","customer":"c 1"}`).Code)
}
