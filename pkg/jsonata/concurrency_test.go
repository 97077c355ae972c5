package jsonata

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConcurrentEvaluationHasNoCrossTalk shares one compiled expression
// between 16 goroutines, each with its own bindings and input. Every
// result must be computed from that goroutine's data only. Run with -race
// to also check for data races.
func TestConcurrentEvaluationHasNoCrossTalk(t *testing.T) {
	t.Parallel()
	const goroutines = 16
	const rounds = 200
	x := MustCompile(`(
		$scale := function($v){ $v * $factor };
		{
			"id": $messageId,
			"data": $,
			"scaled": items.price ~> $map($scale),
			"sum": items.(price * qty) ~> $sum(),
			"tag": $uppercase($topic) & "-" & $string($factor),
			"sorted": $sort(items, function($a, $b){ $a.price < $b.price }).price,
			"parent": (items.{ "owner": %.owner }.owner)[0]
		}
	)`)
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				if err := checkOneEvaluation(x, g, r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func checkOneEvaluation(x *Expression, g, r int) error {
	factor := float64(g + 1)
	input := fmt.Sprintf(`{"owner":"g%d","items":[{"price":%d,"qty":2},{"price":%d,"qty":1}]}`, g, g+10, r+1)
	bindings := map[string]any{"messageId": fmt.Sprintf("m-%d-%d", g, r), "topic": fmt.Sprintf("topic%d", g), "factor": factor}
	out, err := x.EvaluateJSON(context.Background(), []byte(input), bindings)
	if err != nil {
		return err
	}
	lo, hi := min(g+10, r+1), max(g+10, r+1)
	want := fmt.Sprintf(`{"id":"m-%d-%d","data":%s,"scaled":[%d,%d],"sum":%d,"tag":"TOPIC%d-%d","sorted":[%d,%d],"parent":"g%d"}`,
		g, r, input, (g+10)*(g+1), (r+1)*(g+1), 2*(g+10)+(r+1), g, g+1, hi, lo, g)
	if string(out) != want {
		return fmt.Errorf("goroutine %d round %d:\n got  %s\n want %s", g, r, out, want)
	}
	return nil
}

// TestCompiledExpressionIsReusable checks that evaluating does not change
// the compiled expression (function chaining used to break reuse in other
// engines).
func TestCompiledExpressionIsReusable(t *testing.T) {
	t.Parallel()
	x := MustCompile(`items.price ~> $map(function($p){ $p * 2 }) ~> $sum()`)
	for range 3 {
		got, err := x.EvaluateJSON(context.Background(), []byte(`{"items":[{"price":1},{"price":2}]}`), nil)
		require.NoError(t, err)
		require.Equal(t, "6", string(got))
	}
}
