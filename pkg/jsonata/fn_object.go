package jsonata

var objectFunctions = []builtinDef{
	{"keys", "<x-:a<s>>", 1, fnKeys},
	{"lookup", "<x-s:x>", 2, fnLookup},
	{"spread", "<x-:a<o>>", 1, fnSpread},
	{"merge", "<a<o>:o>", 1, fnMerge},
	{"sift", "<o-f?:o>", 2, fnSift},
	{"each", "<o-f?:a>", 2, fnEach},
	{"type", "<x:s>", 1, fnType},
	{"clone", "<(oa)-:o>", 1, fnClone},
}

func fnKeys(c *call, args []any) (any, error) {
	v := arg(args, 0)
	if arr, ok := v.([]any); ok {
		var keys []any
		seen := map[string]bool{}
		for _, item := range arr {
			for _, k := range objectKeys(item) {
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
		return seqResult(keys, false), nil
	}
	if !isObject(v) {
		return undefined, nil
	}
	keys := objectKeys(v)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return seqResult(out, false), nil
}

func fnLookup(c *call, args []any) (any, error) {
	key, _ := arg(args, 1).(string)
	return lookupField(arg(args, 0), key), nil
}

func fnSpread(c *call, args []any) (any, error) {
	v := arg(args, 0)
	switch x := v.(type) {
	case []any:
		var out []any
		for _, item := range x {
			r, err := fnSpread(c, []any{item})
			if err != nil {
				return nil, err
			}
			out = appendFlat(out, r)
		}
		return seqResult(out, false), nil
	case *Object, map[string]any:
		var out []any
		_ = objectEach(x, func(k string, val any) error {
			o := NewObject(1)
			o.Set(k, val)
			out = append(out, o)
			return nil
		})
		return seqResult(out, false), nil
	}
	return v, nil
}

func fnMerge(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return undefined, nil
	}
	out := NewObject(0)
	for _, o := range arr {
		_ = objectEach(o, func(k string, v any) error {
			out.Set(k, v)
			return nil
		})
	}
	return out, nil
}

func fnSift(c *call, args []any) (any, error) {
	o := arg(args, 0)
	if !isObject(o) {
		return undefined, nil
	}
	out := NewObject(0)
	err := objectEach(o, func(k string, v any) error {
		r, err := c.applyHOF(arg(args, 1), v, k, o)
		if err != nil {
			return err
		}
		if truthy(r) {
			out.Set(k, v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return undefined, nil
	}
	return out, nil
}

func fnEach(c *call, args []any) (any, error) {
	o := arg(args, 0)
	if !isObject(o) {
		return undefined, nil
	}
	var out []any
	err := objectEach(o, func(k string, v any) error {
		r, err := c.applyHOF(arg(args, 1), v, k, o)
		if err != nil {
			return err
		}
		if !isUndef(r) {
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return seqResult(out, false), nil
}

func fnType(c *call, args []any) (any, error) {
	v := arg(args, 0)
	if isUndef(v) {
		return undefined, nil
	}
	return typeName(v), nil
}

func fnClone(c *call, args []any) (any, error) {
	v := arg(args, 0)
	if isUndef(v) {
		return undefined, nil
	}
	return deepCopy(v, 0)
}

// deepCopy copies arrays and objects (maps become *Object).
func deepCopy(v any, depth int) (any, error) {
	if depth > maxValueNesting {
		return nil, &DepthError{Limit: maxValueNesting, What: "value nesting", Position: -1}
	}
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			c, err := deepCopy(item, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case *Object, map[string]any:
		out := NewObject(objectLen(x))
		err := objectEach(x, func(k string, val any) error {
			c, err := deepCopy(val, depth+1)
			out.Set(k, c)
			return err
		})
		return out, err
	}
	return v, nil
}
