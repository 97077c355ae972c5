package jsonata

import (
	"math/rand/v2"
)

var arrayFunctions = []builtinDef{
	{"append", "<xx:a>", 2, fnAppend},
	{"sort", "<af?:a>", 1, fnSort},
	{"reverse", "<a:a>", 1, fnReverse},
	{"shuffle", "<a:a>", 1, fnShuffle},
	{"distinct", "<x:x>", 1, fnDistinct},
	{"zip", "<a+>", 1, fnZip},
}

func fnAppend(c *call, args []any) (any, error) {
	a, b := arg(args, 0), arg(args, 1)
	if isUndef(a) {
		return b, nil
	}
	if isUndef(b) {
		return a, nil
	}
	la, lb := asArray(a), asArray(b)
	if err := c.s.checkSize(len(la)+len(lb), "array"); err != nil {
		return nil, err
	}
	out := make([]any, 0, len(la)+len(lb))
	return append(append(out, la...), lb...), nil
}

func fnSort(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return undefined, nil
	}
	if len(arr) <= 1 {
		return arr, nil
	}
	idx := make([]int, len(arr))
	for i := range idx {
		idx[i] = i
	}
	var swap func(a, b int) (bool, error)
	if fn := arg(args, 1); isFunction(fn) {
		swap = func(a, b int) (bool, error) {
			r, err := c.s.apply(fn, []any{arr[a], arr[b]}, c.in, c.pos)
			if err != nil {
				return false, err
			}
			return truthy(r), nil
		}
	} else {
		if !allNumbers(arr) && !allStrings(arr) {
			return nil, c.errorf("D3070")
		}
		swap = func(a, b int) (bool, error) {
			switch x := arr[a].(type) {
			case float64:
				return x > arr[b].(float64), nil
			case string:
				return compareStrings(x, arr[b].(string)) > 0, nil
			}
			return false, nil
		}
	}
	if err := c.s.mergeSort(idx, swap); err != nil {
		return nil, err
	}
	out := make([]any, len(arr))
	for i, j := range idx {
		out[i] = arr[j]
	}
	return out, nil
}

func allStrings(a []any) bool {
	for _, v := range a {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

func fnReverse(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return undefined, nil
	}
	out := make([]any, len(arr))
	for i, v := range arr {
		out[len(arr)-1-i] = v
	}
	return out, nil
}

func fnShuffle(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return undefined, nil
	}
	out := append([]any(nil), arr...)
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, nil
}

func fnDistinct(c *call, args []any) (any, error) {
	v := arg(args, 0)
	arr, ok := v.([]any)
	if !ok {
		return v, nil
	}
	var out []any
	seen := map[any]bool{}
	for i, item := range arr {
		if i&255 == 255 {
			if err := c.s.check(); err != nil {
				return nil, err
			}
		}
		switch item.(type) {
		case nil, bool, float64, string:
			if !seen[item] {
				seen[item] = true
				out = append(out, item)
			}
			continue
		}
		dup := false
		for _, o := range out {
			if err := c.s.tick(); err != nil {
				return nil, err
			}
			if deepEqual(o, item) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, item)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

func fnZip(c *call, args []any) (any, error) {
	if len(args) == 0 {
		return []any{}, nil
	}
	n := -1
	arrays := make([][]any, len(args))
	for i, a := range args {
		arrays[i] = asArray(a)
		if n < 0 || len(arrays[i]) < n {
			n = len(arrays[i])
		}
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		row := make([]any, len(arrays))
		for j := range arrays {
			row[j] = arrays[j][i]
		}
		out[i] = row
	}
	return out, nil
}
