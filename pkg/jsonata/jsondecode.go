package jsonata

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONNesting bounds the nesting of decoded documents.
const maxJSONNesting = 10000

// DecodeJSON parses one JSON document into the values the evaluator uses:
// *Object (key order kept, last duplicate wins), []any, float64, string,
// bool and nil. Trailing non-space text is an error. Nesting deeper than
// 10000 levels returns a *DepthError. It is safe for concurrent use.
func DecodeJSON(data []byte) (any, error) {
	d := jsonDecoder{src: string(data)}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.src) {
		return nil, d.fail("unexpected text after the JSON value")
	}
	return v, nil
}

// jsonDecoder decodes from one string; unescaped strings are substrings of
// src, so they share its memory instead of being copied.
type jsonDecoder struct {
	src  string
	pos  int
	keys []string // scratch stack of the keys of the objects being decoded
	vals []any    // scratch stack of the values being decoded
}

func (d *jsonDecoder) fail(msg string) error {
	return &Error{Code: "U1002", Position: d.pos, Message: "invalid JSON input: " + msg}
}

func (d *jsonDecoder) skipSpace() {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) (any, error) {
	if depth > maxJSONNesting {
		return nil, &DepthError{Limit: maxJSONNesting, What: "JSON nesting", Position: -1}
	}
	if d.pos >= len(d.src) {
		return nil, d.fail("unexpected end of input")
	}
	switch c := d.src[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case strings.HasPrefix(d.src[d.pos:], "true"):
		d.pos += 4
		return true, nil
	case strings.HasPrefix(d.src[d.pos:], "false"):
		d.pos += 5
		return false, nil
	case strings.HasPrefix(d.src[d.pos:], "null"):
		d.pos += 4
		return nil, nil
	}
	return nil, d.fail(fmt.Sprintf("unexpected character %q", d.src[d.pos]))
}

// object decodes an object. Keys and values are collected on the
// decoder's scratch stacks so that the object gets exactly sized slices.
func (d *jsonDecoder) object(depth int) (any, error) {
	d.pos++
	markK, markV := len(d.keys), len(d.vals)
	defer func() { d.keys, d.vals = d.keys[:markK], d.vals[:markV] }()
	d.skipSpace()
	if d.pos < len(d.src) && d.src[d.pos] == '}' {
		d.pos++
		return &Object{}, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.src) || d.src[d.pos] != '"' {
			return nil, d.fail("expected a string key")
		}
		k, err := d.string()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.src) || d.src[d.pos] != ':' {
			return nil, d.fail("expected ':'")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.keys, d.vals = append(d.keys, k.(string)), append(d.vals, v)
		if done, err := d.endOfItem('}', "object"); done || err != nil {
			return newObjectFrom(d.keys[markK:], d.vals[markV:]), err
		}
	}
}

// endOfItem consumes the separator after an item; done is true at the
// closing character.
func (d *jsonDecoder) endOfItem(closing byte, what string) (bool, error) {
	d.skipSpace()
	if d.pos >= len(d.src) {
		return false, d.fail("unexpected end of input in " + what)
	}
	switch d.src[d.pos] {
	case ',':
		d.pos++
		return false, nil
	case closing:
		d.pos++
		return true, nil
	}
	return false, d.fail(fmt.Sprintf("expected ',' or '%c'", closing))
}

// newObjectFrom copies decoded keys and values into an Object; a repeated
// key keeps its first position and its last value, as JSON.parse does.
func newObjectFrom(keys []string, vals []any) *Object {
	obj := &Object{keys: append([]string(nil), keys...), vals: append([]any(nil), vals...)}
	if len(keys) > indexThreshold {
		obj.index = make(map[string]int, len(keys))
		for i, k := range keys {
			if _, dup := obj.index[k]; dup {
				return rebuildObject(keys, vals)
			}
			obj.index[k] = i
		}
		return obj
	}
	for i := 1; i < len(keys); i++ {
		for j := 0; j < i; j++ {
			if keys[i] == keys[j] {
				return rebuildObject(keys, vals)
			}
		}
	}
	return obj
}

func rebuildObject(keys []string, vals []any) *Object {
	obj := NewObject(len(keys))
	for i, k := range keys {
		obj.Set(k, vals[i])
	}
	return obj
}

func (d *jsonDecoder) array(depth int) (any, error) {
	d.pos++
	mark := len(d.vals)
	defer func() { d.vals = d.vals[:mark] }()
	d.skipSpace()
	if d.pos < len(d.src) && d.src[d.pos] == ']' {
		d.pos++
		return []any{}, nil
	}
	for {
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.vals = append(d.vals, v)
		if done, err := d.endOfItem(']', "array"); done || err != nil {
			return append([]any(nil), d.vals[mark:]...), err
		}
	}
}

func (d *jsonDecoder) number() (any, error) {
	start := d.pos
	if d.src[d.pos] == '-' {
		d.pos++
	}
	intStart := d.pos
	for d.pos < len(d.src) && isDigit(d.src[d.pos]) {
		d.pos++
	}
	if d.pos == intStart || (d.src[intStart] == '0' && d.pos-intStart > 1) {
		return nil, d.fail("invalid number")
	}
	if d.pos < len(d.src) && d.src[d.pos] == '.' {
		d.pos++
		fs := d.pos
		for d.pos < len(d.src) && isDigit(d.src[d.pos]) {
			d.pos++
		}
		if d.pos == fs {
			return nil, d.fail("invalid number")
		}
	}
	if d.pos < len(d.src) && (d.src[d.pos] == 'e' || d.src[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.src) && (d.src[d.pos] == '+' || d.src[d.pos] == '-') {
			d.pos++
		}
		es := d.pos
		for d.pos < len(d.src) && isDigit(d.src[d.pos]) {
			d.pos++
		}
		if d.pos == es {
			return nil, d.fail("invalid number")
		}
	}
	f, err := strconv.ParseFloat(d.src[start:d.pos], 64)
	if err != nil {
		return nil, d.fail("number out of range")
	}
	return f, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (d *jsonDecoder) string() (any, error) {
	d.pos++
	start := d.pos
	for d.pos < len(d.src) {
		c := d.src[d.pos]
		if c == '"' {
			s := d.src[start:d.pos]
			d.pos++
			return s, nil
		}
		if c == '\\' {
			return d.escapedString(start)
		}
		if c < 0x20 {
			return nil, d.fail("control character in string")
		}
		d.pos++
	}
	return nil, d.fail("unterminated string")
}

// escapedString finishes a string that contains escapes; start is the
// offset of its first character.
func (d *jsonDecoder) escapedString(start int) (any, error) {
	var b strings.Builder
	b.WriteString(d.src[start:d.pos])
	for d.pos < len(d.src) {
		c := d.src[d.pos]
		switch {
		case c == '"':
			d.pos++
			return b.String(), nil
		case c < 0x20:
			return nil, d.fail("control character in string")
		case c != '\\':
			b.WriteByte(c)
			d.pos++
		default:
			if err := d.escape(&b); err != nil {
				return nil, err
			}
		}
	}
	return nil, d.fail("unterminated string")
}

// escape decodes the backslash escape at d.pos into b.
func (d *jsonDecoder) escape(b *strings.Builder) error {
	if d.pos+1 >= len(d.src) {
		return d.fail("unterminated string")
	}
	e := d.src[d.pos+1]
	d.pos += 2
	if r, ok := simpleEscapes[e]; ok {
		b.WriteByte(r)
		return nil
	}
	if e != 'u' {
		return d.fail("invalid escape")
	}
	r, ok := d.hex4()
	if !ok {
		return d.fail("invalid \\u escape")
	}
	if utf16.IsSurrogate(r) && strings.HasPrefix(d.src[d.pos:], "\\u") {
		save := d.pos
		d.pos += 2
		if lo, ok := d.hex4(); ok {
			if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
				b.WriteRune(dec)
				return nil
			}
		}
		d.pos = save
	}
	writeWTF8(b, r)
	return nil
}

var simpleEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (d *jsonDecoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(d.src[d.pos:d.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	d.pos += 4
	return rune(v), true
}
