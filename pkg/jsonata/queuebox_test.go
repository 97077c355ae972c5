package jsonata

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// queueboxCases are the transforms of the QueueBox product documentation
// (spec/13_Transform_payloads.md, spec/32_Transforms_and_templates.md and
// the QueueBox transform examples), with their documented input and output.
// Where a page shows an expression without a sample, the input is the one
// the page describes and the output follows from the expression.
var queueboxCases = []struct {
	name     string
	expr     string
	input    string
	bindings map[string]any
	want     string
}{
	{
		name:     "13: destination envelope",
		expr:     `{ "id": $messageId, "type": $topic, "data": $ }`,
		input:    `{"orderId":"1001"}`,
		bindings: map[string]any{"messageId": "6b1f0c1e-9a7d-4f0e-8a1c-2f3d4e5f6a7b", "topic": "order.created"},
		want:     `{"id":"6b1f0c1e-9a7d-4f0e-8a1c-2f3d4e5f6a7b","type":"order.created","data":{"orderId":"1001"}}`,
	},
	{
		name: "13: route reshape with chained $sum",
		expr: `{
  "orderId": id,
  "customer": customer.name,
  "total": items.(price * quantity) ~> $sum()
}
`,
		input: `{"id":"1001","customer":{"name":"Ada"},"items":[{"price":10,"quantity":2},{"price":5,"quantity":3}]}`,
		want:  `{"orderId":"1001","customer":"Ada","total":35}`,
	},
	{
		name:     "13: source transform reads a quoted header",
		expr:     `{ "action": action, "repository": repository.full_name, "event": $headers."x-github-event" }`,
		input:    `{"action":"opened","repository":{"full_name":"alternayte/queuebox"},"number":7}`,
		bindings: map[string]any{"headers": map[string]any{"x-github-event": "pull_request", "content-type": "application/json"}},
		want:     `{"action":"opened","repository":"alternayte/queuebox","event":"pull_request"}`,
	},
	{
		name:  "13: remove secret fields",
		expr:  `$ ~> |$|{}, ['password', 'secret', 'token']|`,
		input: `{"user":"ada","password":"hunter2","profile":{"secret":"kept, nested"},"secret":"s","token":"t","plan":"pro"}`,
		want:  `{"user":"ada","profile":{"secret":"kept, nested"},"plan":"pro"}`,
	},
	{
		name:  "13: choose an action, paid",
		expr:  `status = 'paid' ? { "action": "fulfill", "orderId": id } : { "action": "remind", "orderId": id }`,
		input: `{"id":"1001","status":"paid"}`,
		want:  `{"action":"fulfill","orderId":"1001"}`,
	},
	{
		name:  "13: choose an action, unpaid",
		expr:  `status = 'paid' ? { "action": "fulfill", "orderId": id } : { "action": "remind", "orderId": id }`,
		input: `{"id":"1002","status":"pending"}`,
		want:  `{"action":"remind","orderId":"1002"}`,
	},
	{
		name:     "13: add the time of the delivery",
		expr:     `$merge([$, { "deliveredAt": $timestamp }])`,
		input:    `{"orderId":"1001","total":35}`,
		bindings: map[string]any{"timestamp": "2026-11-30T09:15:00Z"},
		want:     `{"orderId":"1001","total":35,"deliveredAt":"2026-11-30T09:15:00Z"}`,
	},
	{
		name:  "13: admin test endpoint expression",
		expr:  `{ "total": items.(price * qty) ~> $sum() }`,
		input: `{"items": [{"price": 10, "qty": 2}, {"price": 5, "qty": 3}]}`,
		want:  `{"total":35}`,
	},
	{
		name:     "32: header with a hyphen needs quotes",
		expr:     `$headers."x-tenant"`,
		input:    `{}`,
		bindings: map[string]any{"headers": map[string]any{"x-tenant": "acme"}},
		want:     `"acme"`,
	},
	{
		name:  "order reshape",
		expr:  `{ "orderId": order.id, "customer": order.customer.name, "total": $sum(order.items.(price * quantity)) }`,
		input: `{"order":{"id":"1001","customer":{"name":"Ada"},"items":[{"price":10,"quantity":2},{"price":5,"quantity":3}]}}`,
		want:  `{"orderId":"1001","customer":"Ada","total":35}`,
	},
	{
		name:     "payload under data is the object, not an array",
		expr:     `{ "data": $, "topic": $topic }`,
		input:    `{"orderId":"1001","lines":[1,2]}`,
		bindings: map[string]any{"topic": "order.created"},
		want:     `{"data":{"orderId":"1001","lines":[1,2]},"topic":"order.created"}`,
	},
	{
		name:     "quoted field of a bound object",
		expr:     `$headers."x-github-event"`,
		input:    `{}`,
		bindings: map[string]any{"headers": map[string]any{"x-github-event": "push"}},
		want:     `"push"`,
	},
	{
		name:  "sum of products",
		expr:  `$sum(items.(price * qty))`,
		input: `{"items": [{"price": 10, "qty": 2}, {"price": 5, "qty": 3}]}`,
		want:  `35`,
	},
}

func TestQueueBoxTransforms(t *testing.T) {
	t.Parallel()
	for _, tc := range queueboxCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x, err := Compile(tc.expr)
			require.NoError(t, err)
			// Evaluate twice: a compiled expression must not change when used.
			for range 2 {
				out, err := x.EvaluateJSON(context.Background(), []byte(tc.input), tc.bindings)
				require.NoError(t, err)
				require.Equal(t, tc.want, string(out))
			}
			// The same expression on a payload decoded by encoding/json.
			var decoded any
			require.NoError(t, json.Unmarshal([]byte(tc.input), &decoded))
			got, err := x.Evaluate(context.Background(), decoded, tc.bindings)
			require.NoError(t, err)
			gotJSON, err := json.Marshal(got)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(gotJSON))
		})
	}
}
