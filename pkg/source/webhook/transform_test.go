package webhook_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/source/webhook"
)

func withTransform(name, expr, onError string) *webhook.Source {
	s := source(name, "/"+name)
	s.Receive.Transform = &ingest.TransformSpec{Expression: expr, TimeoutMs: 100, MaxDepth: 100, OnError: onError}
	return s
}

func TestSourceTransform(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr, onError string
		status              int
		want                string // exact body of a rejection
		stored              string // payload of the stored row
	}{
		{name: "applied", expr: "wrap", onError: "Fail", status: 202, stored: `{"data":{"id":"1","type":"t.x"}}`},
		{name: "fail", expr: "fail", onError: "Fail", status: 422, want: `{"error":"Transform failed: boom at position 3"}`},
		{name: "default strategy fails", expr: "fail", onError: "", status: 422, want: `{"error":"Transform failed: boom at position 3"}`},
		{name: "dead", expr: "fail", onError: "Dead", status: 422, want: `{"error":"Transform failed: boom at position 3"}`},
		{name: "skip", expr: "fail", onError: "Skip", status: 202, stored: `{"id":"1","type":"t.x"}`},
		{name: "result not JSON", expr: "text", onError: "Fail", status: 422, want: `{"error":"Transform failed: the result is not a JSON document"}`},
		{name: "timeout", expr: "slow", onError: "Fail", status: 422, want: `{"error":"Transform failed: the evaluation ran past timeoutMs (1 ms)"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &ingesttest.Compiler{}
			src := withTransform("s", tt.expr, tt.onError)
			src.Receive.Transform.TimeoutMs = 1
			ev := newEnv(t, nil, ingest.Expressions(rec.Compile), src)
			res := ev.post("/inbox/s", `{"id":"1","type":"t.x"}`)
			if tt.want != "" {
				requireAnswer(t, res, tt.status, tt.want)
				require.Empty(t, ev.mem.Rows())
				require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "transform_failed"))
				return
			}
			require.Equal(t, tt.status, res.Code, res.Body.String())
			require.JSONEq(t, tt.stored, string(ev.mem.Rows()[0].Payload))
			require.Equal(t, 0.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "transform_failed"))
		})
	}
}

func TestTransformVariables(t *testing.T) {
	t.Parallel()
	rec := &ingesttest.Compiler{}
	src := withTransform("billing", "wrap", "Fail")
	src.Auth = &auth.Options{Kind: auth.KindBearer, Token: secret.New("tok")}
	ev := newEnv(t, nil, ingest.Expressions(rec.Compile), src)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/billing", `{"id":"inv-1","type":"invoice.paid"}`,
		"Authorization", "Bearer tok", "X-Tenant", "acme").Code)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/billing", `{"id":"inv-2"}`, "Authorization", "Bearer tok").Code)

	vars := rec.Vars()
	require.Len(t, vars, 2)
	rows := ev.mem.Rows()
	v := vars[0]
	require.Equal(t, rows[0].ID, v["messageId"], "$messageId is the id of the new row")
	require.Equal(t, "invoice.paid", v["topic"])
	require.Equal(t, 0, v["attempt"])
	require.Equal(t, t0.UTC().Format(time.RFC3339Nano), v["timestamp"])
	require.Equal(t, "billing", v["source"])
	require.Equal(t, "inv-1", v["idempotencyKey"])
	require.Equal(t, "invoice.paid", v["eventType"])
	headers := v["headers"].(map[string]any)
	require.Equal(t, "acme", headers["x-tenant"])
	require.NotContains(t, headers, "authorization", "$headers omits the credential headers")

	require.Equal(t, "", vars[1]["topic"], "$topic is empty without an event type")
	require.Nil(t, vars[1]["eventType"], "$eventType is null without an event type")
}

// The transform runs before the duplicate check, so a repeat of a stored
// message whose transform now fails gets 422, not 200.
func TestTransformRunsBeforeTheDuplicateCheck(t *testing.T) {
	t.Parallel()
	store := &memStore{}
	ok := newEnv(t, store, ingest.Expressions((&ingesttest.Compiler{}).Compile), withTransform("s", "wrap", "Fail"))
	require.Equal(t, http.StatusAccepted, ok.post("/inbox/s", `{"id":"1"}`).Code)
	failing := newEnv(t, store, ingest.Expressions((&ingesttest.Compiler{}).Compile), withTransform("s", "fail", "Fail"))
	requireAnswer(t, failing.post("/inbox/s", `{"id":"1"}`), 422, `{"error":"Transform failed: boom at position 3"}`)
	require.Len(t, store.Rows(), 1)
}

func TestTransformSetupErrors(t *testing.T) {
	t.Parallel()
	m, err := ingest.NewMetrics(newEnv(t, nil, nil).reg)
	require.NoError(t, err)
	opts := ingest.Options{Store: &memStore{}, Metrics: m}

	_, err = webhook.NewHandler(*withTransform("s", "wrap", "Fail"), inbox, opts)
	require.EqualError(t, err, "sources.s.transform: source transforms are not available in this build")

	opts.Transforms = ingest.Expressions((&ingesttest.Compiler{}).Compile)
	_, err = webhook.NewHandler(*withTransform("s", "bad(", "Fail"), inbox, opts)
	require.EqualError(t, err, "sources.s.transform.expression: syntax error")
}
