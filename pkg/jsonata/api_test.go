package jsonata

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEvaluateJSONKeepsKeyOrder(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, input, want string }{
		{`$`, `{"z":1,"a":{"y":2,"b":3},"m":[{"k":1,"c":2}]}`, `{"z":1,"a":{"y":2,"b":3},"m":[{"k":1,"c":2}]}`},
		{`{"z": a, "a": z}`, `{"a":1,"z":2}`, `{"z":1,"a":2}`},
		{`$merge([{"b":1,"a":2}, {"c":3,"b":4}])`, ``, `{"b":4,"a":2,"c":3}`},
		{`$keys($)`, `{"b":1,"a":2,"c":3}`, `["b","a","c"]`},
		{`$ ~> |$|{"added": true}, ["b"]|`, `{"c":1,"b":2,"a":3}`, `{"c":1,"a":3,"added":true}`},
		{`$sift($, function($v){ $v > 1 })`, `{"x":1,"w":2,"v":3}`, `{"w":2,"v":3}`},
		{`$string({"b": 1.5, "a": [true, null, "\u00e9\n"]})`, ``, `"{\"b\":1.5,\"a\":[true,null,\"é\\n\"]}"`},
		{`[0.1 + 0.2, 1e21, 1e-7, -0, 100]`, ``, `[0.30000000000000004,1e+21,1e-7,0,100]`},
	}
	for _, tc := range tests {
		x, err := Compile(tc.expr)
		require.NoError(t, err, tc.expr)
		out, err := x.EvaluateJSON(context.Background(), []byte(tc.input), nil)
		require.NoError(t, err, tc.expr)
		require.Equal(t, tc.want, string(out), tc.expr)
	}
}

func TestObjectJSONRoundTrip(t *testing.T) {
	t.Parallel()
	var o Object
	require.NoError(t, json.Unmarshal([]byte(`{"z":1,"a":[{"q":true,"b":null}],"m":"s"}`), &o))
	require.Equal(t, []string{"z", "a", "m"}, o.Keys())
	out, err := json.Marshal(&o)
	require.NoError(t, err)
	require.Equal(t, `{"z":1,"a":[{"q":true,"b":null}],"m":"s"}`, string(out))

	o.Set("a", "replaced")
	o.Set("new", 1.0)
	o.Delete("z")
	v, ok := o.Get("a")
	require.True(t, ok)
	require.Equal(t, "replaced", v)
	require.Equal(t, 3, o.Len())
	out, err = json.Marshal(&o)
	require.NoError(t, err)
	require.Equal(t, `{"a":"replaced","m":"s","new":1}`, string(out))
	require.Error(t, json.Unmarshal([]byte(`[1]`), &o))
}

func TestLargeObjectKeepsOrderAndIndex(t *testing.T) {
	t.Parallel()
	o := NewObject(0)
	for i := range 100 {
		o.Set(string(rune('a'+i%26))+strings.Repeat("x", i/26), float64(i))
	}
	v, ok := o.Get("zxx")
	require.True(t, ok)
	require.Equal(t, 77.0, v)
	o.Delete("a")
	v, ok = o.Get("zxx")
	require.True(t, ok)
	require.Equal(t, 77.0, v)
	require.Equal(t, "b", o.Keys()[0])
}

func TestSyntaxErrorsHaveCodeAndPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr, code string
		position   int
	}{
		{`[1,2)`, "S0202", 4},
		{`"unterminated`, "S0101", 0},
		{"`unterminated", "S0105", 0},
		{`1 +`, "S0207", 3},
		{`foo bar`, "S0201", 4},
		{`$x := `, "S0207", 6},
		{`function(x){1}`, "S0208", 9},
		{`a ! b`, "S0204", 2},
		{`é.)`, "S0211", 2},
		{`1 := 2`, "S0212", 2},
		{`Account.Order@o`, "S0214", 13},
		{`/* open`, "S0106", 0},
		{`$match("a", /[/)`, "S0302", 12},
		{`λ($a)<n<n>>{$a}`, "S0401", 5},
	}
	for _, tc := range tests {
		_, err := Compile(tc.expr)
		var je *Error
		require.ErrorAs(t, err, &je, tc.expr)
		require.Equal(t, tc.code, je.Code, tc.expr)
		require.Equal(t, tc.position, je.Position, tc.expr)
		require.NotEmpty(t, je.Message)
	}
}

func TestDynamicErrorsAreTyped(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, code, token string }{
		{`"a" - 1`, "T2001", "-"},
		{`1 + "a"`, "T2002", "+"},
		{`$foo()`, "T1006", "foo"},
		{`sum(1)`, "T1005", "sum"},
		{`$substring("a", "b")`, "T0410", "substring"},
		{`$error("boom")`, "D3137", "error"},
		{`{ "a": 1, "a": 2 }`, "D1009", "a"},
	}
	for _, tc := range tests {
		x := MustCompile(tc.expr)
		_, err := x.Evaluate(context.Background(), Undefined, nil)
		var je *Error
		require.ErrorAs(t, err, &je, tc.expr)
		require.Equal(t, tc.code, je.Code, tc.expr)
		require.Equal(t, tc.token, je.Token, tc.expr)
		require.GreaterOrEqual(t, je.Position, 0, tc.expr)
		require.Equal(t, tc.code, ErrorCode(err))
	}
}

func TestUndefinedResult(t *testing.T) {
	t.Parallel()
	x := MustCompile(`missing.field`)
	_, err := x.Evaluate(context.Background(), map[string]any{"a": 1.0}, nil)
	require.ErrorIs(t, err, ErrUndefined)
	_, err = x.EvaluateJSON(context.Background(), []byte(`{"a":1}`), nil)
	require.ErrorIs(t, err, ErrUndefined)
	// null is a value, not undefined.
	got, err := MustCompile(`a`).Evaluate(context.Background(), map[string]any{"a": nil}, nil)
	require.NoError(t, err)
	require.Nil(t, got)
}

func TestGoValueInputs(t *testing.T) {
	t.Parallel()
	x := MustCompile(`{ "sum": $sum(n), "count": $count(n), "s": m.k, "b": $b, "t": $type($b) }`)
	input := map[string]any{
		"n": []any{json.Number("1.5"), 2, int64(3), uint8(4)},
		"m": map[string]string{"k": "v"},
	}
	got, err := x.Evaluate(context.Background(), input, map[string]any{"b": []int{1, 2}})
	require.NoError(t, err)
	out, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, `{"sum":10.5,"count":4,"s":"v","b":[1,2],"t":"array"}`, string(out))

	_, err = x.Evaluate(context.Background(), map[string]any{"bad": make(chan int)}, nil)
	require.Error(t, err)
}

func TestUndefinedInput(t *testing.T) {
	t.Parallel()
	x := MustCompile(`$exists($) ? "input" : "none"`)
	got, err := x.Evaluate(context.Background(), Undefined, nil)
	require.NoError(t, err)
	require.Equal(t, "none", got)
	out, err := x.EvaluateJSON(context.Background(), []byte("  "), nil)
	require.NoError(t, err)
	require.Equal(t, `"none"`, string(out))
	got, err = x.Evaluate(context.Background(), nil, nil)
	require.NoError(t, err)
	require.Equal(t, "input", got)
}

func TestInvalidJSONInput(t *testing.T) {
	t.Parallel()
	x := MustCompile(`$`)
	for _, in := range []string{`{"a":}`, `[1,2`, `{"a":1} x`, `"\x"`, `01`, `{'a':1}`} {
		_, err := x.EvaluateJSON(context.Background(), []byte(in), nil)
		require.Equal(t, "U1002", ErrorCode(err), in)
	}
	out, err := x.EvaluateJSON(context.Background(), []byte(`{"a":1,"a":2,"b":"\ud83d\ude00 \u00e9"}`), nil)
	require.NoError(t, err)
	require.Equal(t, `{"a":2,"b":"😀 é"}`, string(out))

	big := `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k3":33,"k13":13}`
	out, err = MustCompile(`[$count($keys($)), k3, k13]`).EvaluateJSON(context.Background(), []byte(big), nil)
	require.NoError(t, err)
	require.Equal(t, `[14,33,13]`, string(out))
}

func TestFunctionBinding(t *testing.T) {
	t.Parallel()
	greet, err := NewFunction("<s-n?:s>", func(_ context.Context, args []any) (any, error) {
		name := args[0].(string)
		if len(args) > 1 {
			return strings.Repeat(name, int(args[1].(float64))), nil
		}
		return "hello " + name, nil
	})
	require.NoError(t, err)
	x := MustCompile(`[$greet("ada"), name.$greet(), $greet("ab", 2)]`)
	got, err := x.Evaluate(context.Background(), map[string]any{"name": "bob"}, map[string]any{"greet": greet})
	require.NoError(t, err)
	require.Equal(t, []any{"hello ada", "hello bob", "abab"}, got)

	_, err = MustCompile(`$greet(true)`).Evaluate(context.Background(), Undefined, map[string]any{"greet": greet})
	require.Equal(t, "T0410", ErrorCode(err))

	failing, err := NewFunction("", func(context.Context, []any) (any, error) { return nil, errors.New("backend down") })
	require.NoError(t, err)
	_, err = MustCompile(`$f()`).Evaluate(context.Background(), Undefined, map[string]any{"f": failing})
	require.EqualError(t, err, "backend down")

	panicking, err := NewFunction("", func(context.Context, []any) (any, error) { panic("bug") })
	require.NoError(t, err)
	_, err = MustCompile(`$f()`).Evaluate(context.Background(), Undefined, map[string]any{"f": panicking})
	require.Equal(t, "U1000", ErrorCode(err), "a panic is returned as an error")

	_, err = NewFunction("<q>", nil)
	require.Error(t, err)
}

func TestOptionsAtCompileAndEvaluate(t *testing.T) {
	t.Parallel()
	x := MustCompile(`[1..50]`, WithMaxSize(10))
	_, err := x.Evaluate(context.Background(), Undefined, nil)
	require.ErrorIs(t, err, ErrSizeLimit)
	got, err := x.Evaluate(context.Background(), Undefined, nil, WithMaxSize(100))
	require.NoError(t, err)
	require.Len(t, got, 50)
}

func TestNowIsStableWithinOneEvaluation(t *testing.T) {
	t.Parallel()
	x := MustCompile(`[$now(), $millis(), $now(), $fromMillis($millis())]`)
	got, err := x.Evaluate(context.Background(), Undefined, nil)
	require.NoError(t, err)
	a := got.([]any)
	require.Equal(t, a[0], a[2])
	require.Equal(t, a[0], a[3])
}

func TestMustCompilePanicsOnSyntaxError(t *testing.T) {
	t.Parallel()
	require.Panics(t, func() { MustCompile(`(`) })
	require.Equal(t, `a.b`, MustCompile(`a.b`).String())
}

func TestEncodeAndDecodeJSON(t *testing.T) {
	t.Parallel()
	v, err := DecodeJSON([]byte(`{"b":[1,{"c":null}],"a":"x"}`))
	require.NoError(t, err)
	out, err := EncodeJSON(v)
	require.NoError(t, err)
	require.Equal(t, `{"b":[1,{"c":null}],"a":"x"}`, string(out))
	out, err = EncodeJSON(map[string]any{"b": 1, "a": []string{"x"}})
	require.NoError(t, err)
	require.Equal(t, `{"a":["x"],"b":1}`, string(out))
	_, err = EncodeJSON(map[string]any{"inf": math.Inf(1)})
	require.Equal(t, "D1001", ErrorCode(err))
}
