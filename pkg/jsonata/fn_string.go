package jsonata

import (
	"encoding/base64"
	"math"
	"strings"
	"unicode/utf8"
)

var stringFunctions = []builtinDef{
	{"string", "<x-b?:s>", 1, fnString},
	{"length", "<s-:n>", 1, fnLength},
	{"substring", "<s-nn?:s>", 3, fnSubstring},
	{"substringBefore", "<s-s:s>", 2, fnSubstringBefore},
	{"substringAfter", "<s-s:s>", 2, fnSubstringAfter},
	{"uppercase", "<s-:s>", 1, strMap(strings.ToUpper)},
	{"lowercase", "<s-:s>", 1, strMap(strings.ToLower)},
	{"trim", "<s-:s>", 1, strMap(trimSpaces)},
	{"pad", "<s-ns?:s>", 2, fnPad},
	{"join", "<a<s>s?:s>", 1, fnJoin},
	{"base64encode", "<s-:s>", 1, fnBase64Encode},
	{"base64decode", "<s-:s>", 1, fnBase64Decode},
	{"encodeUrlComponent", "<s-:s>", 1, urlEncoder("encodeUrlComponent", "-_.!~*'()")},
	{"encodeUrl", "<s-:s>", 1, urlEncoder("encodeUrl", "-_.!~*'();/?:@&=+$,#")},
	{"decodeUrlComponent", "<s-:s>", 1, urlDecoder("decodeUrlComponent", "")},
	{"decodeUrl", "<s-:s>", 1, urlDecoder("decodeUrl", ";/?:@&=+$,#")},
}

func fnString(c *call, args []any) (any, error) {
	v := arg(args, 0)
	if isUndef(v) {
		return undefined, nil
	}
	pretty, _ := arg(args, 1).(bool)
	str, err := castString(v, pretty)
	if err != nil {
		if je, ok := err.(*Error); ok {
			je.Position = runeOffset(c.s.src, c.pos)
		}
		return nil, err
	}
	return c.checkString(str)
}

func fnLength(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	return float64(utf8.RuneCountInString(str)), nil
}

// strMap lifts a string transformation into a built-in.
func strMap(f func(string) string) func(c *call, args []any) (any, error) {
	return func(c *call, args []any) (any, error) {
		str, ok := arg(args, 0).(string)
		if !ok {
			return undefined, nil
		}
		return f(str), nil
	}
}

// trimSpaces turns runs of whitespace into single spaces and trims the ends.
func trimSpaces(str string) string {
	var b strings.Builder
	space := false
	for _, r := range str {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

func fnSubstring(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	runes := []rune(str)
	n := len(runes)
	startF, ok := arg(args, 1).(float64)
	if !ok {
		return undefined, nil
	}
	start := int(math.Max(math.Min(truncFloat(startF), math.MaxInt32), math.MinInt32))
	if start < 0 {
		start = max(n+start, 0)
	}
	if start > n {
		return "", nil
	}
	end := n
	if l, ok := arg(args, 2).(float64); ok {
		length := int(math.Min(truncFloat(l), math.MaxInt32))
		if length <= 0 {
			return "", nil
		}
		end = min(start+length, n)
	}
	return string(runes[start:end]), nil
}

func fnSubstringBefore(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	chars, _ := arg(args, 1).(string)
	if i := strings.Index(str, chars); i >= 0 {
		return str[:i], nil
	}
	return str, nil
}

func fnSubstringAfter(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	chars, _ := arg(args, 1).(string)
	if i := strings.Index(str, chars); i >= 0 {
		return str[i+len(chars):], nil
	}
	return str, nil
}

func fnPad(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	widthF, ok := arg(args, 1).(float64)
	if !ok {
		return undefined, nil
	}
	width := int(math.Max(math.Min(truncFloat(widthF), math.MaxInt32), math.MinInt32))
	char := optString(args, 2, " ")
	if char == "" {
		char = " "
	}
	abs := width
	if abs < 0 {
		abs = -abs
	}
	padLen := abs - utf8.RuneCountInString(str)
	if padLen <= 0 {
		return str, nil
	}
	if err := c.s.checkSize(padLen*len(char)+len(str), "string"); err != nil {
		return nil, err
	}
	padding := []rune(strings.Repeat(char, padLen))[:padLen]
	if width > 0 {
		return str + string(padding), nil
	}
	return string(padding) + str, nil
}

func fnJoin(c *call, args []any) (any, error) {
	arr, ok := arg(args, 0).([]any)
	if !ok {
		return undefined, nil
	}
	sep := optString(args, 1, "")
	total := 0
	parts := make([]string, len(arr))
	for i, v := range arr {
		parts[i] = v.(string)
		total += len(parts[i]) + len(sep)
	}
	if err := c.s.checkSize(total, "string"); err != nil {
		return nil, err
	}
	return strings.Join(parts, sep), nil
}

func fnBase64Encode(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	return base64.StdEncoding.EncodeToString([]byte(str)), nil
}

func fnBase64Decode(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	b, err := base64.StdEncoding.DecodeString(str)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(str, "="))
		if err != nil {
			return undefined, nil
		}
	}
	return string(b), nil
}

// urlEncoder implements encodeURIComponent (and encodeURI with more
// characters left as they are).
func urlEncoder(name, keep string) func(c *call, args []any) (any, error) {
	return func(c *call, args []any) (any, error) {
		str, ok := arg(args, 0).(string)
		if !ok {
			return undefined, nil
		}
		var b strings.Builder
		for i := 0; i < len(str); {
			r, size := utf8.DecodeRuneInString(str[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, c.s.errAt("D3140", c.pos, name, name, str)
			}
			if r < utf8.RuneSelf && (isAlnum(byte(r)) || strings.IndexByte(keep, byte(r)) >= 0) {
				b.WriteByte(byte(r))
			} else {
				for j := 0; j < size; j++ {
					b.WriteByte('%')
					b.WriteByte(upperHex[str[i+j]>>4])
					b.WriteByte(upperHex[str[i+j]&0xF])
				}
			}
			i += size
		}
		return b.String(), nil
	}
}

const upperHex = "0123456789ABCDEF"

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// urlDecoder implements decodeURIComponent (and decodeURI, which leaves
// escapes of reserved characters as they are).
func urlDecoder(name, reserved string) func(c *call, args []any) (any, error) {
	return func(c *call, args []any) (any, error) {
		str, ok := arg(args, 0).(string)
		if !ok {
			return undefined, nil
		}
		bad := func() error { return c.s.errAt("D3140", c.pos, name, name, str) }
		var b strings.Builder
		for i := 0; i < len(str); {
			if str[i] != '%' {
				b.WriteByte(str[i])
				i++
				continue
			}
			start := i
			seq, ok := decodePercentSeq(str, &i)
			if !ok {
				return nil, bad()
			}
			if len(seq) == 1 && strings.IndexByte(reserved, seq[0]) >= 0 {
				b.WriteString(str[start:i])
			} else {
				b.Write(seq)
			}
		}
		return b.String(), nil
	}
}

// decodePercentSeq decodes the %XX escapes of one UTF-8 encoded character
// starting at str[*i] and advances *i past them.
func decodePercentSeq(str string, i *int) ([]byte, bool) {
	first, ok := hexByte(str, *i+1)
	if !ok {
		return nil, false
	}
	*i += 3
	n := 1
	switch {
	case first < 0x80:
		return []byte{first}, true
	case first&0xE0 == 0xC0:
		n = 2
	case first&0xF0 == 0xE0:
		n = 3
	case first&0xF8 == 0xF0:
		n = 4
	default:
		return nil, false
	}
	seq := []byte{first}
	for k := 1; k < n; k++ {
		if *i >= len(str) || str[*i] != '%' {
			return nil, false
		}
		v, ok := hexByte(str, *i+1)
		if !ok || v&0xC0 != 0x80 {
			return nil, false
		}
		seq = append(seq, v)
		*i += 3
	}
	if !utf8.Valid(seq) {
		return nil, false
	}
	return seq, true
}

func hexByte(s string, i int) (byte, bool) {
	if i+2 > len(s) {
		return 0, false
	}
	hi, ok1 := hexVal(s[i])
	lo, ok2 := hexVal(s[i+1])
	return hi<<4 | lo, ok1 && ok2
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
