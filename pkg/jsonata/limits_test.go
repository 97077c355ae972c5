package jsonata

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// maxRunawayAlloc is the most a runaway expression may allocate (bytes,
// runtime.MemStats.TotalAlloc) before a limit stops it.
const maxRunawayAlloc = 64 << 20

// runawayCases are expressions that never finish or grow without bound.
// Each must stop with the typed error of the limit that trips first.
var runawayCases = []struct {
	name    string
	expr    string
	timeout time.Duration
	opts    []Option
	want    error // ErrTimeout, ErrDepth, ErrSizeLimit, or nil for a result
	result  any
}{
	{name: "infinite tail recursion", expr: `($f := function($x){$f($x)}; $f(1))`, timeout: 50 * time.Millisecond, want: ErrTimeout},
	{name: "infinite mutual tail recursion", expr: `($a := function($n){$b($n + 1)}; $b := function($n){$a($n - 1)}; $a(0))`, timeout: 50 * time.Millisecond, want: ErrTimeout},
	{name: "infinite recursion", expr: `($f := function($x){1 + $f($x)}; $f(1))`, timeout: time.Second, want: ErrDepth},
	{name: "recursion with a huge depth limit stops before the Go stack", expr: `($f := function($x){1 + $f($x)}; $f(1))`, timeout: 10 * time.Second, opts: []Option{WithMaxDepth(1 << 30)}, want: ErrDepth},
	{name: "recursion through a higher-order function", expr: `($f := function($x){ $map([$x], $f) }; $f(1))`, timeout: time.Second, want: ErrDepth},
	{name: "huge range with a small cap", expr: `[1..10000000].($*2)`, timeout: time.Second, opts: []Option{WithMaxSize(100000)}, want: ErrSizeLimit},
	{name: "range past the default cap", expr: `[0..10000000]`, timeout: time.Second, want: ErrSizeLimit},
	{name: "nested ranges multiply past the cap", expr: `[1..1000].([1..1000]).([1..1000])`, timeout: 5 * time.Second, opts: []Option{WithMaxSize(100000)}, want: ErrSizeLimit},
	{name: "string doubling by recursion", expr: `($f := function($s){ $f($s & $s) }; $f("x"))`, timeout: 5 * time.Second, want: ErrSizeLimit},
	{name: "string doubling by $reduce", expr: `$reduce([1..64], function($acc, $i){ $acc & $acc }, "ab")`, timeout: 5 * time.Second, want: ErrSizeLimit},
	{name: "padding past the cap", expr: `$pad("x", 100000000, "-")`, timeout: 5 * time.Second, want: ErrSizeLimit},
	{name: "replacement growth past the cap", expr: `$replace($pad("", 1000000, "a"), "a", "aaaaaaaaaaaaaaaaaaaa")`, timeout: 5 * time.Second, want: ErrSizeLimit},
	{name: "endless loop building arrays", expr: `($loop := function($i){ ($x := [1..100]; $loop($i + 1)) }; $loop(0))`, timeout: 50 * time.Millisecond, want: ErrTimeout},
	{name: "slow comparator in $sort", expr: `$sort([1..2000], function($a, $b){ $count([1..2000]) > 0 and $a < $b })`, timeout: 50 * time.Millisecond, want: ErrTimeout},
	{name: "endless $eval recursion", expr: `($f := function(){ $eval('$f()') }; $f())`, timeout: time.Second, want: ErrDepth},
	{name: "formatNumber with an exponent of zero", expr: `$formatNumber(0,'0e0')`, timeout: time.Second, result: "0e0"},
	{name: "formatNumber with a huge value", expr: `$formatNumber(1e300, '#,##0.00e0')`, timeout: time.Second, result: "1.00e300"},
}

// TestRunawayExpressions runs sequentially (no t.Parallel) so that the
// allocation measured for each case is its own.
func TestRunawayExpressions(t *testing.T) {
	for _, tc := range runawayCases {
		t.Run(tc.name, func(t *testing.T) {
			x, err := Compile(tc.expr, tc.opts...)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()

			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			got, err := x.Evaluate(ctx, Undefined, nil)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)

			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("stopped after %v with %.1f MiB allocated: %v", elapsed.Round(time.Millisecond), float64(allocated)/(1<<20), err)
			if tc.want == nil {
				require.NoError(t, err)
				require.Equal(t, tc.result, got)
			} else {
				require.ErrorIs(t, err, tc.want)
			}
			require.Less(t, elapsed, 2*tc.timeout+time.Second, "the limit must stop the evaluation in about the timeout")
			// A case stopped by its deadline allocates as much as the
			// machine manages in that time, so the total says how fast the
			// machine is, not whether memory is bounded; only the depth and
			// size limits promise a bound on it.
			if !errors.Is(tc.want, ErrTimeout) {
				require.Less(t, allocated, uint64(maxRunawayAlloc), "a runaway expression must run in bounded memory")
			}
		})
	}
}

func TestDeepExpressionNestingIsRejected(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{
		strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000),
		strings.Repeat("[", 100000) + strings.Repeat("]", 100000),
		strings.Repeat("-", 100000) + "1",
		strings.Repeat("a.", 100000) + "b",
		strings.Repeat("$f(", 50000) + strings.Repeat(")", 50000),
	} {
		_, err := Compile(expr)
		require.ErrorIs(t, err, ErrDepth, "expression of %d bytes", len(expr))
	}
}

func TestDeepJSONInputIsRejected(t *testing.T) {
	t.Parallel()
	x := MustCompile(`$`)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	_, err := x.EvaluateJSON(context.Background(), []byte(deep), nil)
	require.ErrorIs(t, err, ErrDepth)
}

func TestDeeplyNestedValueIsHandled(t *testing.T) {
	t.Parallel()
	// Builds a value nested 50,000 levels deep, then compares, copies and
	// serialises it: none of this may exhaust the Go stack.
	x := MustCompile(`(
		$deep := $reduce([1..50000], function($acc, $i){ {"a": $acc} }, {});
		[$deep = $deep, $length($string($deep)), $type($deep ~> |$|{}|)]
	)`)
	got, err := x.Evaluate(context.Background(), Undefined, nil)
	require.NoError(t, err)
	require.Equal(t, []any{true, float64(300002), "object"}, got)
}

func TestTimeoutErrorWrapsContextError(t *testing.T) {
	t.Parallel()
	x := MustCompile(`($f := function(){ $f() }; $f())`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := x.Evaluate(ctx, Undefined, nil)
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
	require.ErrorIs(t, err, ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Equal(t, "D1012", ErrorCode(err))
}

func TestCancelledContextStopsEvaluation(t *testing.T) {
	t.Parallel()
	x := MustCompile(`$count([1..10])`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := x.Evaluate(ctx, Undefined, nil)
	require.ErrorIs(t, err, ErrTimeout)
	require.ErrorIs(t, err, context.Canceled)
}

func TestDepthErrorReportsTheLimit(t *testing.T) {
	t.Parallel()
	x := MustCompile(`($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(50))`)
	got, err := x.Evaluate(context.Background(), Undefined, nil, WithMaxDepth(60))
	require.NoError(t, err)
	require.Equal(t, 50.0, got)

	_, err = x.Evaluate(context.Background(), Undefined, nil, WithMaxDepth(40))
	var de *DepthError
	require.ErrorAs(t, err, &de)
	require.Equal(t, 40, de.Limit)
	require.Equal(t, "D1011", ErrorCode(err))
}

func TestSizeLimitErrorReportsTheSize(t *testing.T) {
	t.Parallel()
	x := MustCompile(`[1..2000]`, WithMaxSize(1000))
	_, err := x.Evaluate(context.Background(), Undefined, nil)
	var se *SizeLimitError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 1000, se.Limit)
	require.Equal(t, 2000, se.Size)
	require.Equal(t, "D2014", ErrorCode(err))
	require.True(t, errors.Is(err, ErrSizeLimit))
}

// TestRecursionStopsBeforeTheGoStack lowers the Go stack limit to 64 MiB,
// a sixteenth of the default, and checks that unbounded recursion through
// every kind of call site stops with a *DepthError even when the call depth
// limit is effectively off. A Go stack overflow would crash the test binary.
func TestRecursionStopsBeforeTheGoStack(t *testing.T) {
	old := debug.SetMaxStack(64 << 20)
	defer debug.SetMaxStack(old)
	for _, expr := range []string{
		`($f := function($x){1 + $f($x)}; $f(1))`,
		`($f := function($x){ $map([$x], $f) }; $f(1))`,
		`($f := function($x){ [$x].($f($)) }; $f(1))`,
		`($f := function($x){ {"a": $f($x)} }; $f(1))`,
		`($f := function($x){ $sort([1,2], function($a,$b){ $f($a) }) }; $f(1))`,
		`($f := function($x){ $eval('$f($x)') }; $f(1))`,
		`($f := function($x){ $x ~> |$|{"a": $f($x)}| }; $f({}))`,
		`($f := function($x){ ($y := $f($x); $y) }; $f(1))`,
		`($f := function($x){ $replace("a", /a/, function($m){ $f($x) }) }; $f(1))`,
		`($f := function($x){ $reduce([1,2], function($a, $b){ $f($a) }) }; $f(1))`,
		`($f := function($x){ $x[$f($)] }; $f([1]))`,
		`($f := function($x){ $filter([$x], $f) }; $f(1))`,
	} {
		x := MustCompile(expr, WithMaxDepth(1<<30))
		_, err := x.Evaluate(context.Background(), Undefined, nil)
		require.ErrorIs(t, err, ErrDepth, expr)
	}
}
