package deliver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
)

// A route or destination stage that builds too much fails through its
// onError strategy instead of growing: its bound is four times its input,
// at least 1 MiB. The timeout is one no busy machine reaches, so the size
// bound, not the clock, must stop each expression.
func TestTransformIsBoundInSize(t *testing.T) {
	t.Parallel()
	bounded := func(expression, onError string) *deliver.TransformSpec {
		return &deliver.TransformSpec{Expression: expression, TimeoutMs: 60_000, MaxDepth: 100, OnError: onError}
	}
	small := `{"id":"1001"}`
	large := `{"blob":"` + strings.Repeat("x", 600_000) + `"}` // 4× is past 1 MiB
	for _, tc := range []struct {
		name, payload string
		route, dest   *deliver.TransformSpec
		strategy      string
		errText       string
		skipped       int
	}{
		{name: "route Dead, one large string", payload: small, route: bounded(`$pad("", 2000000, "x")`, deliver.StrategyDead),
			strategy: deliver.StrategyDead, errText: "exceeds the limit of 1048576"},
		{name: "destination Fail, a large result from a small range", payload: small,
			dest: bounded(`[1..200000].("0123456789")`, deliver.StrategyFail), strategy: deliver.StrategyFail,
			errText: "destinations.partner.transform: "},
		{name: "route Skip passes the payload on", payload: small, route: bounded(`$pad("", 2000000, "x")`, deliver.StrategySkip),
			skipped: 1},
		{name: "a large payload may grow fourfold", payload: large, route: bounded(`{"a": $, "b": $, "c": $}`, deliver.StrategyDead)},
		{name: "but not more", payload: large, route: bounded(`{"a": $, "b": $, "c": $, "d": $, "e": $}`, deliver.StrategyDead),
			strategy: deliver.StrategyDead, errText: "four times its input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body, skipped, failure := apply(t, t.Context(), tc.route, tc.dest, tc.payload)
			require.Equal(t, tc.skipped, skipped)
			if tc.strategy == "" {
				require.Nil(t, failure)
				if skipped == 1 {
					require.JSONEq(t, tc.payload, string(body))
				}
				return
			}
			require.NotNil(t, failure)
			require.Equal(t, tc.strategy, failure.Strategy)
			require.False(t, failure.Cancelled)
			require.ErrorContains(t, failure.Err, tc.errText)
			require.ErrorContains(t, failure.Err, "exceeds the limit of")
		})
	}
}
