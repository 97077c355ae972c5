package jsonata

import (
	"math"
	"slices"
	"strings"
)

func (n *literalNode) eval(s *state, in any, e *env) (any, error) { return n.val, nil }

func (n *varNode) eval(s *state, in any, e *env) (any, error) {
	switch n.name {
	case "":
		return in, nil
	case "$":
		return s.root, nil
	}
	return s.lookupVar(e, n.name), nil
}

func (n *parentNode) eval(s *state, in any, e *env) (any, error) {
	anc, _ := e.ancestry()
	if anc == nil {
		return nil, s.errAt("S0217", n.pos, "%")
	}
	return anc.val, nil
}

func (n *negNode) eval(s *state, in any, e *env) (any, error) {
	v, err := s.eval(n.operand, in, e)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case undefinedType:
		return undefined, nil
	case float64:
		return -x, nil
	}
	return nil, s.errAt("D1002", n.pos, "-", describeValue(v))
}

func (n *blockNode) eval(s *state, in any, e *env) (any, error) {
	be := newEnv(e)
	var v any = undefined
	for _, x := range n.exprs {
		var err error
		if v, err = s.eval(x, in, be); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func (n *bindNode) eval(s *state, in any, e *env) (any, error) {
	v, err := s.eval(n.value, in, e)
	if err != nil {
		return nil, err
	}
	e.bind(n.name, v)
	return v, nil
}

func (n *condNode) eval(s *state, in any, e *env) (any, error) {
	c, err := s.eval(n.cond, in, e)
	if err != nil {
		return nil, err
	}
	if truthy(c) {
		return s.eval(n.then, in, e)
	}
	if n.els != nil {
		return s.eval(n.els, in, e)
	}
	return undefined, nil
}

func (n *arrayNode) eval(s *state, in any, e *env) (any, error) {
	out := make([]any, 0, len(n.items))
	for i, item := range n.items {
		if r, ok := item.(*rangeNode); ok {
			var err error
			if out, err = r.appendRange(s, in, e, out); err != nil {
				return nil, err
			}
			continue
		}
		v, err := s.eval(item, in, e)
		if err != nil {
			return nil, err
		}
		if n.nested[i] {
			if !isUndef(v) {
				out = append(out, v)
			}
		} else {
			out = appendFlat(out, v)
		}
		if err := s.checkSize(len(out), "array"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (n *rangeNode) eval(s *state, in any, e *env) (any, error) {
	out, err := n.appendRange(s, in, e, nil)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return undefined, nil
	}
	return out, nil
}

// appendRange appends the integers lo..hi to out.
func (n *rangeNode) appendRange(s *state, in any, e *env, out []any) ([]any, error) {
	lo, err := s.eval(n.lo, in, e)
	if err != nil {
		return nil, err
	}
	hi, err := s.eval(n.hi, in, e)
	if err != nil {
		return nil, err
	}
	lf, lok := lo.(float64)
	if !isUndef(lo) && (!lok || !isInteger(lf)) {
		return nil, s.errAt("T2003", n.pos, "..")
	}
	hf, hok := hi.(float64)
	if !isUndef(hi) && (!hok || !isInteger(hf)) {
		return nil, s.errAt("T2004", n.pos, "..")
	}
	if !lok || !hok || lf > hf {
		return out, nil
	}
	size := hf - lf + 1
	if size > float64(s.maxSize) || float64(len(out))+size > float64(s.maxSize) {
		return nil, &SizeLimitError{Limit: s.maxSize, Size: int(math.Min(size+float64(len(out)), math.MaxInt32)), What: "range", Position: runeOffset(s.src, n.pos)}
	}
	out = slices.Grow(out, int(size))
	for i := lf; i <= hf; i++ {
		if err := s.tick(); err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, nil
}

func (n *binaryNode) eval(s *state, in any, e *env) (any, error) {
	switch n.op {
	case "and", "or":
		return s.logical(n, in, e)
	case "??", "?:":
		return s.defaulting(n, in, e)
	}
	l, err := s.eval(n.lhs, in, e)
	if err != nil {
		return nil, err
	}
	r, err := s.eval(n.rhs, in, e)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "+", "-", "*", "/", "%":
		return s.arithmetic(n, l, r)
	case "=":
		return !isUndef(l) && !isUndef(r) && deepEqual(l, r), nil
	case "!=":
		return !isUndef(l) && !isUndef(r) && !deepEqual(l, r), nil
	case "<", "<=", ">", ">=":
		return s.compare(n, l, r)
	case "&":
		return s.concat(l, r)
	case "in":
		return inclusion(l, r), nil
	}
	return nil, s.errAt("S0204", n.pos, n.op, n.op)
}

// defaulting implements ?? (lhs unless undefined) and ?: (lhs unless
// false by the $boolean rules).
func (s *state) defaulting(n *binaryNode, in any, e *env) (any, error) {
	l, err := s.eval(n.lhs, in, e)
	if err != nil {
		return nil, err
	}
	if (n.op == "??" && !isUndef(l)) || (n.op == "?:" && truthy(l)) {
		return l, nil
	}
	return s.eval(n.rhs, in, e)
}

// concat implements &, casting both sides to strings.
func (s *state) concat(l, r any) (any, error) {
	ls, err := s.stringify(l)
	if err != nil {
		return nil, err
	}
	rs, err := s.stringify(r)
	if err != nil {
		return nil, err
	}
	if err := s.checkSize(len(ls)+len(rs), "string"); err != nil {
		return nil, err
	}
	return ls + rs, nil
}

// inclusion implements the in operator.
func inclusion(l, r any) bool {
	if isUndef(l) {
		return false
	}
	for _, item := range asArray(r) {
		if deepEqual(l, item) {
			return true
		}
	}
	return false
}

func (s *state) logical(n *binaryNode, in any, e *env) (any, error) {
	l, err := s.eval(n.lhs, in, e)
	if err != nil {
		return nil, err
	}
	lt := truthy(l)
	if n.op == "and" && !lt {
		return false, nil
	}
	if n.op == "or" && lt {
		return true, nil
	}
	r, err := s.eval(n.rhs, in, e)
	if err != nil {
		return nil, err
	}
	return truthy(r), nil
}

func (s *state) arithmetic(n *binaryNode, l, r any) (any, error) {
	lf, lok := l.(float64)
	if !isUndef(l) && !lok {
		return nil, s.errAt("T2001", n.pos, n.op, n.op)
	}
	rf, rok := r.(float64)
	if !isUndef(r) && !rok {
		return nil, s.errAt("T2002", n.pos, n.op, n.op)
	}
	if !lok || !rok {
		return undefined, nil
	}
	var res float64
	switch n.op {
	case "+":
		res = lf + rf
	case "-":
		res = lf - rf
	case "*":
		res = lf * rf
	case "/":
		return lf / rf, nil
	default:
		return math.Mod(lf, rf), nil
	}
	if math.IsInf(res, 0) {
		return nil, s.errAt("D1001", n.pos, n.op, formatNumber(res))
	}
	return res, nil
}

func (s *state) compare(n *binaryNode, l, r any) (any, error) {
	comparable := func(v any) bool {
		switch v.(type) {
		case undefinedType, float64, string:
			return true
		}
		return false
	}
	if !comparable(l) || !comparable(r) {
		return nil, s.errAt("T2010", n.pos, n.op, n.op)
	}
	if isUndef(l) || isUndef(r) {
		return undefined, nil
	}
	var c int
	switch x := l.(type) {
	case float64:
		y, ok := r.(float64)
		if !ok {
			return nil, s.errAt("T2009", n.pos, n.op, describeValue(l), describeValue(r), n.op)
		}
		c = cmpOrdered(x, y)
	case string:
		y, ok := r.(string)
		if !ok {
			return nil, s.errAt("T2009", n.pos, n.op, describeValue(l), describeValue(r), n.op)
		}
		c = compareStrings(x, y)
	}
	switch n.op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

// stringify casts a value to a string with the $string rules; undefined
// becomes the empty string.
func (s *state) stringify(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case undefinedType:
		return "", nil
	}
	return castString(v, false)
}

// castString implements $string for a defined value.
func castString(v any, pretty bool) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", newError("D3001", -1, "")
		}
		return formatNumber(roundPrecision15(x)), nil
	}
	if isFunction(v) {
		return "", nil
	}
	w := jsonWriter{round: true}
	if pretty {
		w.indent = "  "
	}
	if err := w.value(v, 0); err != nil {
		return "", err
	}
	return string(w.buf), nil
}

// describeValue renders a value for error messages.
func describeValue(v any) string {
	if isUndef(v) {
		return "undefined"
	}
	s, err := castString(v, false)
	if err != nil {
		return typeName(v)
	}
	if str, ok := v.(string); ok {
		return `"` + strings.ReplaceAll(str, `"`, `\"`) + `"`
	}
	return s
}
