package ingest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

// A source transform that builds too much fails through its onError
// strategy instead of growing: the size bound (inbox.maxBodyBytes, 1 MiB
// by default) stops it, as it stops the admin test route. The timeout is
// one no busy machine reaches, so the size bound, not the clock, must
// stop each expression.
func TestReceiveTransformIsBoundInSize(t *testing.T) {
	t.Parallel()
	const body = `{"id":"1","type":"t.x"}`
	for _, tc := range []struct {
		name, expr string
		maxOut     int // Options.MaxTransformOutputBytes
		limit      string
	}{
		{name: "one large string", expr: `$pad("", 2000000, "x")`, limit: "exceeds the limit of 1048576"},
		{name: "a large result from a small range", expr: `[1..200000].("0123456789")`, limit: "exceeds the limit of 1048576"},
		{name: "the bound of the options", expr: `{"d": $, "pad": $pad("", 100, "x")}`, maxOut: 64, limit: "exceeds the limit of 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := withTransform("s", tc.expr, "Fail")
			src.Transform.TimeoutMs = 60_000
			opts := ingest.Options{Transforms: ingest.Expressions(transform.JSONata), MaxTransformOutputBytes: tc.maxOut}

			http := newReceiverWith(t, src, ingest.Transport{}, &memStore{}, opts)
			d, err := http.r.Receive(context.Background(), msg(body))
			require.NoError(t, err)
			require.Equal(t, ingest.Rejected, d.Outcome)
			require.Contains(t, d.Message, tc.limit)
			require.Contains(t, d.Message, "inbox.maxBodyBytes")
			require.Empty(t, http.mem.Rows())

			brk := newReceiverWith(t, src, broker, &memStore{}, opts)
			d, err = brk.r.Receive(context.Background(), msg(body))
			require.NoError(t, err)
			require.Equal(t, ingest.Dead, d.Outcome)
			rows := brk.mem.Rows()
			require.Len(t, rows, 1)
			require.Equal(t, queuebox.StateDead, rows[0].State)
			require.JSONEq(t, body, string(rows[0].Payload), "the original payload is stored")
			require.Contains(t, *rows[0].LastError, "sources.s.transform (onError Fail): ")
			require.Contains(t, *rows[0].LastError, tc.limit)
			require.Equal(t, 1.0, brk.counter(t, "queuebox_inbox_rejections_total", "reason", "transform_failed"))
		})
	}
	// A result inside the bound is stored as it came out.
	src := withTransform("s", `{"d": $}`, "Fail")
	ok := newReceiverWith(t, src, broker, &memStore{}, ingest.Options{Transforms: ingest.Expressions(transform.JSONata)})
	d, err := ok.r.Receive(context.Background(), msg(body))
	require.NoError(t, err)
	require.Equal(t, ingest.Stored, d.Outcome)
}
