package jsonata

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// regexValue is a compiled regular expression literal. As a value it is a
// function: applied to a string it returns the first match object.
//
// Regular expressions run on Go's RE2 engine, which matches in linear time,
// so a pattern cannot backtrack catastrophically; lookaround assertions and
// back-references are therefore not supported (Compile reports S0303).
type regexValue struct {
	re     *regexp.Regexp
	source string
	flags  string
}

func (r *regexValue) arity() int { return 1 }

func (n *regexNode) eval(s *state, in any, e *env) (any, error) { return n.re, nil }

// compileRegex translates a JavaScript regular expression to RE2 syntax.
func compileRegex(source, flags string) (*regexValue, error) {
	prefix, err := regexFlags(flags)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(prefix)
	inClass := false
	for i := 0; i < len(source); i++ {
		c := source[i]
		switch {
		case c == '\\' && i+1 < len(source):
			i++
			if err := translateEscape(&b, source, &i); err != nil {
				return nil, err
			}
			continue
		case c == '[' && !inClass && strings.HasPrefix(source[i:], "[^]"):
			b.WriteString(`[\s\S]`)
			i += 2
			continue
		case c == '[' && !inClass:
			inClass = true
		case c == ']' && inClass:
			inClass = false
		case c == '(' && !inClass && isLookaround(source[i:]):
			return nil, fmt.Errorf("lookaround assertions are not supported")
		}
		b.WriteByte(c)
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, err
	}
	return &regexValue{re: re, source: source, flags: flags}, nil
}

// regexFlags turns JavaScript flags into an RE2 flag group.
func regexFlags(flags string) (string, error) {
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			prefix += string(f)
		case 'g', 'u', 'y':
		default:
			return "", fmt.Errorf("unknown flag %q", f)
		}
	}
	if prefix == "" {
		return "", nil
	}
	return "(?" + prefix + ")", nil
}

func isLookaround(s string) bool {
	return strings.HasPrefix(s, "(?=") || strings.HasPrefix(s, "(?!") ||
		strings.HasPrefix(s, "(?<=") || strings.HasPrefix(s, "(?<!")
}

// translateEscape copies the escape at source[*i] (after the backslash).
func translateEscape(b *strings.Builder, source string, i *int) error {
	c := source[*i]
	switch {
	case c == '/':
		b.WriteByte('/')
	case c == 'u' && *i+4 < len(source):
		b.WriteString(`\x{` + source[*i+1:*i+5] + `}`)
		*i += 4
	case c >= '1' && c <= '9':
		return fmt.Errorf("back-references are not supported")
	case c == 'c' || c == '0':
		return fmt.Errorf(`\%c escapes are not supported`, c)
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return nil
}

// eachRegexMatch calls fn with the submatch offsets of up to limit (all
// if negative) non-overlapping matches of re in str, checking the
// deadline between matches. A match of the empty string is error D1004.
func (s *state) eachRegexMatch(re *regexValue, str string, limit int, pos int, fn func(loc []int) error) error {
	offset := 0
	for n := 0; offset <= len(str) && (limit < 0 || n < limit); n++ {
		if err := s.tick(); err != nil {
			return err
		}
		loc := re.re.FindStringSubmatchIndex(str[offset:])
		if loc == nil {
			break
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += offset
			}
		}
		if loc[0] == loc[1] {
			return s.errAt("D1004", pos, "", re.source)
		}
		if err := fn(loc); err != nil {
			return err
		}
		offset = loc[1]
	}
	return nil
}

// matchObject builds the object a matcher function returns.
func matchObject(str string, loc []int) *Object {
	obj := NewObject(5)
	obj.Set("match", str[loc[0]:loc[1]])
	start := utf8.RuneCountInString(str[:loc[0]])
	obj.Set("start", float64(start))
	obj.Set("end", float64(start+utf8.RuneCountInString(str[loc[0]:loc[1]])))
	groups := make([]any, 0, len(loc)/2-1)
	for g := 2; g+1 < len(loc); g += 2 {
		if loc[g] < 0 {
			groups = append(groups, "")
		} else {
			groups = append(groups, str[loc[g]:loc[g+1]])
		}
	}
	obj.Set("groups", groups)
	return obj
}

// matchNext is the next() function of a match object.
type matchNext struct {
	re     *regexValue
	str    string
	offset int
	pos    int
}

func (m *matchNext) arity() int { return 0 }

func (m *matchNext) next(s *state) (any, error) {
	if m.offset > len(m.str) {
		return undefined, nil
	}
	loc := m.re.re.FindStringSubmatchIndex(m.str[m.offset:])
	if loc == nil {
		return undefined, nil
	}
	for i := range loc {
		if loc[i] >= 0 {
			loc[i] += m.offset
		}
	}
	if loc[0] == loc[1] {
		return nil, s.errAt("D1004", m.pos, "", m.re.source)
	}
	obj := matchObject(m.str, loc)
	obj.Set("next", &matchNext{re: m.re, str: m.str, offset: loc[1], pos: m.pos})
	return obj, nil
}

// regexMatcher applies a regex used as a function to its argument.
func (s *state) regexMatcher(re *regexValue, args []any, pos int) (any, error) {
	if len(args) == 0 {
		return undefined, nil
	}
	str, ok := args[0].(string)
	if !ok {
		return undefined, nil
	}
	return (&matchNext{re: re, str: str, pos: pos}).next(s)
}
