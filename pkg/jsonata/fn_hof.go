package jsonata

var higherOrderFunctions = []builtinDef{
	{"map", "<af>", 2, fnMap},
	{"filter", "<af>", 2, fnFilter},
	{"single", "<af?>", 2, fnSingle},
	{"reduce", "<afj?:j>", 3, fnReduce},
}

func fnMap(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return undefined, nil
	}
	var out []any
	for i, v := range arr {
		r, err := c.applyHOF(args[1], v, float64(i), arr)
		if err != nil {
			return nil, err
		}
		if !isUndef(r) {
			out = append(out, r)
			if err := c.s.growCheck(len(out)); err != nil {
				return nil, err
			}
		}
	}
	return seqResult(out, false), nil
}

func fnFilter(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return undefined, nil
	}
	var out []any
	for i, v := range arr {
		r, err := c.applyHOF(args[1], v, float64(i), arr)
		if err != nil {
			return nil, err
		}
		if truthy(r) {
			out = append(out, v)
		}
	}
	return seqResult(out, false), nil
}

func fnSingle(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return undefined, nil
	}
	var found any = undefined
	count := 0
	for i, v := range arr {
		keep := true
		if fn := arg(args, 1); isFunction(fn) {
			r, err := c.applyHOF(fn, v, float64(i), arr)
			if err != nil {
				return nil, err
			}
			keep = truthy(r)
		}
		if keep {
			count++
			if count > 1 {
				return nil, c.errorf("D3138")
			}
			found = v
		}
	}
	if count == 0 {
		return nil, c.errorf("D3139")
	}
	return found, nil
}

func fnReduce(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return undefined, nil
	}
	fn, ok := arg(args, 1).(callable)
	if !ok || fn.arity() < 2 {
		return nil, c.errorf("D3050")
	}
	acc := arg(args, 2)
	start := 0
	if isUndef(acc) && len(arr) > 0 {
		acc = arr[0]
		start = 1
	}
	for i := start; i < len(arr); i++ {
		r, err := c.applyHOF(fn, acc, arr[i], float64(i), arr)
		if err != nil {
			return nil, err
		}
		acc = r
	}
	return acc, nil
}
