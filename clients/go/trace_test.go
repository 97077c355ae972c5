package queuebox

import (
	"context"
	"database/sql"
	"testing"
)

type traceKey struct{}

func TestTraceContextHook(t *testing.T) {
	t.Parallel()
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	hook := func(ctx context.Context, traceparent, tracestate string) context.Context {
		return context.WithValue(ctx, traceKey{}, traceparent+"|"+tracestate)
	}
	cases := []struct {
		name    string
		hook    func(context.Context, string, string) context.Context
		headers map[string]string
		want    any
	}{
		{name: "stored context", hook: hook, headers: map[string]string{"traceparent": parent, "tracestate": "v=1"}, want: parent + "|v=1"},
		{name: "any letter case", hook: hook, headers: map[string]string{"Traceparent": parent}, want: parent + "|"},
		{name: "no traceparent: no call", hook: hook, headers: map[string]string{"x": "y"}, want: nil},
		{name: "no hook", headers: map[string]string{"traceparent": parent}, want: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got any
			r := &runner{w: &InboxWorker{opts: Options{TraceContext: tc.hook}},
				handler: func(ctx context.Context, _ Message, _ *sql.Tx) error { got = ctx.Value(traceKey{}); return nil }}
			if err := r.call(context.Background(), Message{Headers: tc.headers}, nil); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("handler context holds %v, want %v", got, tc.want)
			}
		})
	}
}
