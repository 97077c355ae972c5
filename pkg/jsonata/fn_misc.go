package jsonata

import "errors"

var miscFunctions = []builtinDef{
	{"boolean", "<x-:b>", 1, fnBoolean},
	{"not", "<x-:b>", 1, fnNot},
	{"exists", "<x:b>", 1, fnExists},
	{"error", "<s?:x>", 1, fnError},
	{"assert", "<bs?:x>", 2, fnAssert},
	{"eval", "<sx?:x>", 1, fnEval},
}

func fnBoolean(c *call, args []any) (any, error) {
	v := arg(args, 0)
	if isUndef(v) {
		return undefined, nil
	}
	if isFunction(v) {
		return false, nil
	}
	return truthy(v), nil
}

func fnNot(c *call, args []any) (any, error) {
	v := arg(args, 0)
	if isUndef(v) {
		return undefined, nil
	}
	if isFunction(v) {
		return true, nil
	}
	return !truthy(v), nil
}

func fnExists(c *call, args []any) (any, error) {
	return !isUndef(arg(args, 0)), nil
}

func fnError(c *call, args []any) (any, error) {
	msg := optString(args, 0, "$error() function evaluated")
	return nil, &Error{Code: "D3137", Position: runeOffset(c.s.src, c.pos), Token: c.name, Message: msg}
}

func fnAssert(c *call, args []any) (any, error) {
	if b, _ := arg(args, 0).(bool); b {
		return undefined, nil
	}
	msg := optString(args, 1, "$assert() statement failed")
	return nil, &Error{Code: "D3141", Position: runeOffset(c.s.src, c.pos), Token: c.name, Message: msg}
}

// fnEval parses and evaluates an expression string against the context
// (or the second argument), with the same limits as the caller.
func fnEval(c *call, args []any) (any, error) {
	src, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	tree, err := compileTree(src, c.s.check)
	if err != nil {
		var depth *DepthError
		var timeout *TimeoutError
		if errors.As(err, &depth) || errors.As(err, &timeout) {
			return nil, err
		}
		return nil, c.errorf("D3120", err.Error())
	}
	in := c.in
	if len(args) > 1 {
		in = args[1]
	}
	outerSrc, outerTop, outerHas := c.s.src, c.s.top, c.s.hasTop
	c.s.src = src
	in = c.s.setTop(in)
	v, err := c.s.eval(tree, in, newEnv(c.env))
	c.s.src, c.s.top, c.s.hasTop = outerSrc, outerTop, outerHas
	if err != nil {
		var je *Error
		if errors.As(err, &je) {
			return nil, c.errorf("D3121", err.Error())
		}
		return nil, err
	}
	return v, nil
}
