package transform_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/jsonata"
	"github.com/alternayte/queuebox/pkg/transform"
)

func TestEvalBounded(t *testing.T) {
	t.Parallel()
	const loop = `($f := function($n){ $f($n+1) }; $f(0))`
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name    string
		ctx     context.Context
		expr    string
		want    string
		errText string
		timeout bool
	}{
		{name: "result", ctx: context.Background(), expr: `{"t": $topic, "p": $}`, want: `{"t":"order.created","p":{"n":1}}`},
		{name: "null is a result", ctx: context.Background(), expr: `null`, want: `null`},
		{name: "undefined is no result", ctx: context.Background(), expr: `missing`, errText: transform.ErrNoResult.Error()},
		{name: "timeout names the setting", ctx: context.Background(), expr: loop,
			errText: "the evaluation ran past timeoutMs (20 ms)", timeout: true},
		{name: "an ended caller is no timeout", ctx: cancelled, expr: loop, errText: "context canceled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x, err := transform.JSONata(tc.expr, 100)
			require.NoError(t, err)
			out, err := transform.EvalBounded(tc.ctx, x, 20, 1<<20, []byte(`{"n":1}`), map[string]any{"topic": "order.created"})
			if tc.errText == "" {
				require.NoError(t, err)
				require.JSONEq(t, tc.want, string(out))
				return
			}
			require.ErrorContains(t, err, tc.errText)
			var te *transform.TimeoutError
			require.Equal(t, tc.timeout, errors.As(err, &te))
		})
	}
}

// The size bound holds with or without a time bound, and an engine
// bound above the item cap does not loosen that cap.
func TestEvalBoundedSize(t *testing.T) {
	t.Parallel()
	x, err := transform.JSONata(`$pad("", 5000, "x")`, 100)
	require.NoError(t, err)
	for _, timeoutMs := range []int{0, 60_000} {
		_, err = transform.EvalBounded(context.Background(), x, timeoutMs, 4096, []byte(`{}`), nil)
		require.ErrorIs(t, err, jsonata.ErrSizeLimit)
		out, err := transform.EvalBounded(context.Background(), x, timeoutMs, 8192, []byte(`{}`), nil)
		require.NoError(t, err)
		require.Len(t, out, 5002)
	}
	huge, err := transform.JSONata(`$count([1..20000000])`, 100)
	require.NoError(t, err)
	_, err = transform.EvalBounded(context.Background(), huge, 0, 1<<30, []byte(`{}`), nil)
	require.ErrorIs(t, err, jsonata.ErrSizeLimit, "the range stops at the engine's item cap")
}

func TestCheckRefusesAnExpressionThatDoesNotCompile(t *testing.T) {
	t.Parallel()
	require.NoError(t, transform.Check(`$sum(items.price)`, 100))
	require.Error(t, transform.Check(`$sum(`, 100))
}
