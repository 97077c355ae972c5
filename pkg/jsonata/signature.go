package jsonata

import "strings"

// sigParam is one parameter of a function signature.
type sigParam struct {
	types    string // allowed type symbols: b n s l a o f
	elem     string // for a<...>: allowed element types, "" for any
	optional bool   // ?
	variadic bool   // +
	context  bool   // -: use the context value when missing
}

// signature is a parsed function signature such as <s-n?:s>.
type signature struct {
	text   string
	params []sigParam
}

// expandType maps a type symbol to the basic symbols it stands for.
func expandType(c byte) (string, bool) {
	switch c {
	case 'b', 'n', 's', 'l', 'a', 'o', 'f':
		return string(c), true
	case 'j':
		return "bnsloa", true
	case 'x':
		return "bnsloaf", true
	case 'u':
		return "bnsl", true
	}
	return "", false
}

// parseSignature parses "<params:return>". The return type is not checked.
func parseSignature(text string) (*signature, error) {
	if len(text) < 2 || text[0] != '<' || text[len(text)-1] != '>' {
		return nil, newError("S0403", -1, text, text)
	}
	body := text[1 : len(text)-1]
	sig := &signature{text: text}
	for i := 0; i < len(body) && body[i] != ':'; {
		p, next, err := parseSigParam(body, i, text)
		if err != nil {
			return nil, err
		}
		sig.params = append(sig.params, p)
		i = next
	}
	return sig, nil
}

// parseSigParam parses the parameter starting at body[i]: a type symbol or
// a (choice) group, an optional <type parameter> and option flags.
func parseSigParam(body string, i int, text string) (sigParam, int, error) {
	var p sigParam
	bad := newError("S0403", -1, text, text)
	if body[i] == '(' {
		end := strings.IndexByte(body[i:], ')')
		if end < 0 {
			return p, 0, bad
		}
		group := body[i+1 : i+end]
		if strings.ContainsRune(group, '<') {
			return p, 0, newError("S0402", -1, text)
		}
		for j := 0; j < len(group); j++ {
			t, ok := expandType(group[j])
			if !ok {
				return p, 0, bad
			}
			p.types += t
		}
		i += end + 1
	} else {
		t, ok := expandType(body[i])
		if !ok {
			return p, 0, bad
		}
		p.types = t
		i++
	}
	if i < len(body) && body[i] == '<' {
		if p.types != "a" && p.types != "f" {
			return p, 0, newError("S0401", -1, text)
		}
		end := matchAngle(body, i)
		if end < 0 {
			return p, 0, bad
		}
		if p.types == "a" {
			p.elem = elementTypes(body[i+1 : end])
		}
		i = end + 1
	}
	for ; i < len(body) && strings.IndexByte("+?-", body[i]) >= 0; i++ {
		switch body[i] {
		case '+':
			p.variadic = true
		case '?':
			p.optional = true
		case '-':
			p.context = true
		}
	}
	return p, i, nil
}

// elementTypes returns the allowed element types of an a<...> parameter.
func elementTypes(inner string) string {
	switch {
	case inner == "":
		return ""
	case inner[0] == '(':
		out := ""
		for j := 1; j < len(inner)-1; j++ {
			t, _ := expandType(inner[j])
			out += t
		}
		return out
	}
	t, _ := expandType(inner[0])
	return t
}

// matchAngle returns the index of the '>' matching the '<' at i.
func matchAngle(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// typeSymbol returns the signature symbol of a value ("" for undefined).
func typeSymbol(v any) byte {
	switch v.(type) {
	case undefinedType:
		return 0
	case nil:
		return 'l'
	case bool:
		return 'b'
	case float64:
		return 'n'
	case string:
		return 's'
	case []any:
		return 'a'
	case *Object, map[string]any:
		return 'o'
	}
	if isFunction(v) {
		return 'f'
	}
	return 0
}

// accepts reports whether p accepts v; a non-array is accepted by an array
// parameter (it will be wrapped in an array).
func (p *sigParam) accepts(v any) bool {
	t := typeSymbol(v)
	if t == 0 {
		return true
	}
	if strings.IndexByte(p.types, t) >= 0 {
		return true
	}
	return t != 'f' && strings.IndexByte(p.types, 'a') >= 0
}

// validate checks args against the signature and returns the argument
// list to use: the context inserted for a missing '-' parameter and
// single values wrapped for array parameters.
func (sig *signature) validate(s *state, args []any, in any, name string, pos int) ([]any, error) {
	counts := make([]int, len(sig.params))
	furthest := 0
	if !sig.match(args, 0, 0, counts, &furthest) {
		return nil, s.errAt("T0410", pos, name, furthest+1, fnName(name))
	}
	out := make([]any, 0, len(args)+1)
	ai := 0
	for pi := range sig.params {
		p := &sig.params[pi]
		if counts[pi] == 0 {
			if p.context {
				if !isUndef(in) && !p.accepts(in) {
					return nil, s.errAt("T0411", pos, name, pi+1, fnName(name))
				}
				v, err := s.wrapArg(p, in, pi, name, pos)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			continue
		}
		for k := 0; k < counts[pi]; k++ {
			v, err := s.wrapArg(p, args[ai], ai, name, pos)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			ai++
		}
	}
	return out, nil
}

// match assigns args[ai:] to params[pi:], recording how many arguments
// each parameter takes. Optional parameters prefer to take an argument.
func (sig *signature) match(args []any, pi, ai int, counts []int, furthest *int) bool {
	if ai > *furthest {
		*furthest = ai
	}
	if pi == len(sig.params) {
		return ai == len(args)
	}
	p := &sig.params[pi]
	maxTake := 1
	if p.variadic {
		maxTake = len(args) - ai
	}
	minTake := 1
	if p.optional || p.context {
		minTake = 0
	}
	taken := 0
	for taken < maxTake && ai+taken < len(args) && p.accepts(args[ai+taken]) {
		taken++
	}
	for n := taken; n >= minTake; n-- {
		counts[pi] = n
		if sig.match(args, pi+1, ai+n, counts, furthest) {
			return true
		}
	}
	counts[pi] = 0
	return false
}

// wrapArg wraps a single value for an array parameter and checks the
// element type of a typed array.
func (s *state) wrapArg(p *sigParam, v any, idx int, name string, pos int) (any, error) {
	if strings.IndexByte(p.types, 'a') < 0 || isUndef(v) {
		return v, nil
	}
	arr, isArr := v.([]any)
	if !isArr {
		if strings.IndexByte(p.types, typeSymbol(v)) >= 0 {
			return v, nil
		}
		arr = []any{v}
	}
	if p.elem != "" {
		for _, item := range arr {
			if t := typeSymbol(item); t == 0 || strings.IndexByte(p.elem, t) < 0 {
				return nil, s.errAt("T0412", pos, name, idx+1, fnName(name), p.elem)
			}
		}
	}
	return arr, nil
}

func fnName(name string) string {
	if name == "" {
		return "lambda"
	}
	return "$" + name
}
