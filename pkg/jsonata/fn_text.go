package jsonata

import (
	"math"
	"strings"
	"unicode/utf8"
)

var textFunctions = []builtinDef{
	{"contains", "<s-(sf):b>", 2, fnContains},
	{"split", "<s-(sf)n?:a<s>>", 2, fnSplit},
	{"match", "<s-f<s:o>n?:a<o>>", 2, fnMatch},
	{"replace", "<s-(sf)(sf)n?:s>", 3, fnReplace},
}

// textMatch is one match of a pattern, with byte offsets into the string.
type textMatch struct {
	start, end int
	match      string
	groups     []any
}

// matches finds up to limit (all when negative) matches of pattern in str.
func (c *call) matches(pattern any, str string, limit int) ([]textMatch, error) {
	var out []textMatch
	err := c.eachMatch(pattern, str, limit, func(m textMatch) error {
		out = append(out, m)
		return c.s.growCheck(len(out))
	})
	return out, err
}

// eachMatch calls fn for up to limit (all when negative) matches of
// pattern in str, in order, checking the deadline between matches. The
// pattern is a string, a regex, or a custom matcher function returning
// {match, start, end, groups, next}.
func (c *call) eachMatch(pattern any, str string, limit int, fn func(textMatch) error) error {
	switch p := pattern.(type) {
	case string:
		for off, n := 0, 0; limit < 0 || n < limit; n++ {
			i := strings.Index(str[off:], p)
			if i < 0 {
				break
			}
			if err := c.s.tick(); err != nil {
				return err
			}
			if err := fn(textMatch{start: off + i, end: off + i + len(p), match: p}); err != nil {
				return err
			}
			off += i + len(p)
		}
		return nil
	case *regexValue:
		return c.s.eachRegexMatch(p, str, limit, c.pos, func(loc []int) error {
			m := textMatch{start: loc[0], end: loc[1], match: str[loc[0]:loc[1]]}
			for g := 2; g+1 < len(loc); g += 2 {
				if loc[g] < 0 {
					m.groups = append(m.groups, "")
				} else {
					m.groups = append(m.groups, str[loc[g]:loc[g+1]])
				}
			}
			return fn(m)
		})
	}
	return c.customMatches(pattern, str, limit, fn)
}

// customMatches drives a user-supplied matcher function.
func (c *call) customMatches(matcher any, str string, limit int, fn func(textMatch) error) error {
	r, err := c.s.apply(matcher, []any{str}, c.in, c.pos)
	if err != nil {
		return err
	}
	for n := 0; !isUndef(r) && (limit < 0 || n < limit); n++ {
		if err := c.s.tick(); err != nil {
			return err
		}
		m, next, ok := c.readMatch(r, str)
		if !ok {
			return c.errorf("T1010", fnName(c.name))
		}
		if err := fn(m); err != nil {
			return err
		}
		if next == nil {
			break
		}
		if r, err = c.s.apply(next, nil, c.in, c.pos); err != nil {
			return err
		}
	}
	return nil
}

// readMatch validates a match object returned by a custom matcher.
func (c *call) readMatch(r any, str string) (textMatch, any, bool) {
	if !isObject(r) {
		return textMatch{}, nil, false
	}
	match, ok1 := objectGetOr(r, "match").(string)
	start, ok2 := objectGetOr(r, "start").(float64)
	end, ok3 := objectGetOr(r, "end").(float64)
	groups, ok4 := objectGetOr(r, "groups").([]any)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return textMatch{}, nil, false
	}
	m := textMatch{start: runeToByte(str, int(start)), end: runeToByte(str, int(end)), match: match, groups: groups}
	next := objectGetOr(r, "next")
	if !isFunction(next) {
		next = nil
	}
	return m, next, true
}

func objectGetOr(o any, key string) any {
	if v, ok := objectGet(o, key); ok {
		return v
	}
	return undefined
}

// runeToByte converts a code point offset into a byte offset of str.
func runeToByte(str string, n int) int {
	if n <= 0 {
		return 0
	}
	i := 0
	for n > 0 && i < len(str) {
		_, size := utf8.DecodeRuneInString(str[i:])
		i += size
		n--
	}
	return i
}

func fnContains(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok || isUndef(arg(args, 1)) {
		return undefined, nil
	}
	if p, ok := args[1].(string); ok {
		return strings.Contains(str, p), nil
	}
	found, err := c.matches(args[1], str, 1)
	if err != nil {
		return nil, err
	}
	return len(found) > 0, nil
}

// limitArg reads an optional non-negative limit; -1 means none.
func (c *call) limitArg(args []any, i int, code string) (int, error) {
	l, ok := arg(args, i).(float64)
	if !ok {
		return -1, nil
	}
	if l < 0 {
		return 0, c.errorf(code)
	}
	return int(math.Min(l, math.MaxInt32)), nil
}

func fnSplit(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	limit, err := c.limitArg(args, 2, "D3020")
	if err != nil {
		return nil, err
	}
	var parts []string
	switch sep := args[1].(type) {
	case string:
		if sep == "" {
			for _, r := range str {
				parts = append(parts, string(r))
			}
		} else {
			parts = strings.Split(str, sep)
		}
	default:
		found, err := c.matches(sep, str, -1)
		if err != nil {
			return nil, err
		}
		prev := 0
		for _, m := range found {
			parts = append(parts, str[prev:m.start])
			prev = m.end
		}
		parts = append(parts, str[prev:])
	}
	if limit >= 0 && limit < len(parts) {
		parts = parts[:limit]
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

func fnMatch(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	limit, err := c.limitArg(args, 2, "D3040")
	if err != nil {
		return nil, err
	}
	found, err := c.matches(args[1], str, limit)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(found))
	for i, m := range found {
		obj := NewObject(3)
		obj.Set("match", m.match)
		obj.Set("index", float64(utf8.RuneCountInString(str[:m.start])))
		groups := m.groups
		if groups == nil {
			groups = []any{}
		}
		obj.Set("groups", groups)
		out[i] = obj
	}
	return seqResult(out, false), nil
}

func fnReplace(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	if p, ok := args[1].(string); ok && p == "" {
		return nil, c.errorf("D3010")
	}
	limit, err := c.limitArg(args, 3, "D3011")
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	prev := 0
	err = c.eachMatch(args[1], str, limit, func(m textMatch) error {
		b.WriteString(str[prev:m.start])
		rep, err := c.replacement(args[2], m, str)
		if err != nil {
			return err
		}
		b.WriteString(rep)
		prev = m.end
		return c.s.checkSize(b.Len()+len(str)-prev, "string")
	})
	if err != nil {
		return nil, err
	}
	b.WriteString(str[prev:])
	return c.checkString(b.String())
}

// replacement computes the replacement text of one match: a function is
// called with the match object; a string has its $n references expanded.
func (c *call) replacement(rep any, m textMatch, str string) (string, error) {
	if isFunction(rep) {
		obj := NewObject(3)
		obj.Set("match", m.match)
		obj.Set("index", float64(utf8.RuneCountInString(str[:m.start])))
		groups := m.groups
		if groups == nil {
			groups = []any{}
		}
		obj.Set("groups", groups)
		r, err := c.s.apply(rep, []any{obj}, c.in, c.pos)
		if err != nil {
			return "", err
		}
		s, ok := r.(string)
		if !ok {
			return "", c.errorf("D3012")
		}
		return s, nil
	}
	str, ok := rep.(string)
	if !ok {
		return "", c.errorf("D3012")
	}
	return expandReplacement(str, m), nil
}

// expandReplacement substitutes $0, $1... and $$ in a replacement string.
// A reference to a group number beyond the groups drops digits from the
// right until it names a group; the dropped digits stay as text.
func expandReplacement(rep string, m textMatch) string {
	if !strings.Contains(rep, "$") {
		return rep
	}
	var b strings.Builder
	for i := 0; i < len(rep); i++ {
		ch := rep[i]
		if ch != '$' || i+1 >= len(rep) {
			b.WriteByte(ch)
			continue
		}
		next := rep[i+1]
		if next == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		if !isDigit(next) {
			b.WriteByte('$')
			continue
		}
		j := i + 1
		for j < len(rep) && isDigit(rep[j]) {
			j++
		}
		digits := rep[i+1 : j]
		for len(digits) > 1 && atoiSmall(digits) > len(m.groups) {
			digits = digits[:len(digits)-1]
		}
		n := atoiSmall(digits)
		switch {
		case n == 0:
			b.WriteString(m.match)
		case n <= len(m.groups):
			if g, ok := m.groups[n-1].(string); ok {
				b.WriteString(g)
			}
		}
		b.WriteString(rep[i+1+len(digits) : j])
		i = j - 1
	}
	return b.String()
}

func atoiSmall(s string) int {
	n := 0
	for i := 0; i < len(s) && n < 1<<20; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
