package jsonata

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

var numericFunctions = []builtinDef{
	{"number", "<(nsb)-:n>", 1, fnNumber},
	{"abs", "<n-:n>", 1, numMap(math.Abs)},
	{"floor", "<n-:n>", 1, numMap(math.Floor)},
	{"ceil", "<n-:n>", 1, numMap(math.Ceil)},
	{"round", "<n-n?:n>", 1, fnRound},
	{"power", "<n-n:n>", 2, fnPower},
	{"sqrt", "<n-:n>", 1, fnSqrt},
	{"random", "<:n>", 0, fnRandom},
	{"formatBase", "<n-n?:s>", 1, fnFormatBase},
}

var aggregateFunctions = []builtinDef{
	{"sum", "<a<n>:n>", 1, fnSum},
	{"max", "<a<n>:n>", 1, fnExtreme(1)},
	{"min", "<a<n>:n>", 1, fnExtreme(-1)},
	{"average", "<a<n>:n>", 1, fnAverage},
	{"count", "<a:n>", 1, fnCount},
}

// numMap lifts a float function into a built-in.
func numMap(f func(float64) float64) func(c *call, args []any) (any, error) {
	return func(c *call, args []any) (any, error) {
		x, ok := arg(args, 0).(float64)
		if !ok {
			return undefined, nil
		}
		return f(x), nil
	}
}

func truncFloat(f float64) float64 { return math.Trunc(f) }

var jsonNumberRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

func fnNumber(c *call, args []any) (any, error) {
	switch x := arg(args, 0).(type) {
	case undefinedType:
		return undefined, nil
	case float64:
		return x, nil
	case bool:
		if x {
			return 1.0, nil
		}
		return 0.0, nil
	case string:
		if f, ok := parseNumberString(x); ok {
			return f, nil
		}
		return nil, c.errorf("D3030", describeValue(x))
	}
	return nil, c.errorf("D3030", describeValue(args[0]))
}

// parseNumberString parses JSON number syntax and 0x/0o/0b integers.
func parseNumberString(str string) (float64, bool) {
	t := strings.TrimSpace(str)
	if len(t) > 2 && t[0] == '0' {
		base := 0
		switch t[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			n, err := strconv.ParseUint(t[2:], base, 64)
			return float64(n), err == nil
		}
	}
	if !jsonNumberRE.MatchString(t) {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func fnRound(c *call, args []any) (any, error) {
	x, ok := arg(args, 0).(float64)
	if !ok {
		return undefined, nil
	}
	prec := 0
	if p, ok := arg(args, 1).(float64); ok {
		prec = int(p)
	}
	return roundHalfEven(x, prec), nil
}

// roundHalfEven rounds x to prec decimal places, ties to even. The value
// is shifted through its decimal representation to avoid binary error.
func roundHalfEven(x float64, prec int) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	shifted := shiftDecimal(x, prec)
	r := math.RoundToEven(shifted)
	if math.Abs(shifted-math.Trunc(shifted)) != 0.5 {
		r = math.Round(shifted)
	}
	return shiftDecimal(r, -prec)
}

// shiftDecimal multiplies x by 10^n by editing its decimal exponent.
func shiftDecimal(x float64, n int) float64 {
	if n == 0 || x == 0 {
		return x
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(x, 'e', -1, 64), "e")
	e, _ := strconv.Atoi(exp)
	f, err := strconv.ParseFloat(mant+"e"+strconv.Itoa(e+n), 64)
	if err != nil {
		return x * math.Pow10(n)
	}
	return f
}

func fnPower(c *call, args []any) (any, error) {
	b, ok := arg(args, 0).(float64)
	if !ok {
		return undefined, nil
	}
	e, ok := arg(args, 1).(float64)
	if !ok {
		return undefined, nil
	}
	r := math.Pow(b, e)
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return nil, c.errorf("D3061", formatNumber(b), formatNumber(e))
	}
	return r, nil
}

func fnSqrt(c *call, args []any) (any, error) {
	x, ok := arg(args, 0).(float64)
	if !ok {
		return undefined, nil
	}
	if x < 0 {
		return nil, c.errorf("D3060", formatNumber(x))
	}
	return math.Sqrt(x), nil
}

func fnRandom(c *call, args []any) (any, error) { return rand.Float64(), nil }

func fnFormatBase(c *call, args []any) (any, error) {
	x, ok := arg(args, 0).(float64)
	if !ok {
		return undefined, nil
	}
	radix := 10.0
	if r, ok := arg(args, 1).(float64); ok {
		radix = r
	}
	if radix < 2 || radix > 36 {
		return nil, c.errorf("D3100", formatNumber(radix))
	}
	x = roundHalfEven(x, 0)
	if math.Abs(x) >= 1<<63 {
		return nil, c.errorf("D1001", formatNumber(x))
	}
	return strconv.FormatInt(int64(x), int(radix)), nil
}

// numbers returns the numbers of an aggregate argument.
func numbers(v any) ([]any, bool) {
	arr, ok := v.([]any)
	return arr, ok
}

func fnSum(c *call, args []any) (any, error) {
	arr, ok := numbers(arg(args, 0))
	if !ok {
		return undefined, nil
	}
	total := 0.0
	for i, v := range arr {
		if i&1023 == 1023 {
			if err := c.s.check(); err != nil {
				return nil, err
			}
		}
		total += v.(float64)
	}
	return total, nil
}

func fnExtreme(sign float64) func(c *call, args []any) (any, error) {
	return func(c *call, args []any) (any, error) {
		arr, ok := numbers(arg(args, 0))
		if !ok || len(arr) == 0 {
			return undefined, nil
		}
		best := arr[0].(float64)
		for _, v := range arr[1:] {
			if f := v.(float64); (f-best)*sign > 0 {
				best = f
			}
		}
		return best, nil
	}
}

func fnAverage(c *call, args []any) (any, error) {
	arr, ok := numbers(arg(args, 0))
	if !ok || len(arr) == 0 {
		return undefined, nil
	}
	total := 0.0
	for _, v := range arr {
		total += v.(float64)
	}
	return total / float64(len(arr)), nil
}

func fnCount(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return 0.0, nil
	}
	return float64(len(arr)), nil
}
