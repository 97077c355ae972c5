package jsonata

import (
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/jsonata/jsonesc"
)

// maxEncodeNesting bounds the nesting of values written as JSON.
const maxEncodeNesting = 100000

// jsonWriter serialises evaluator values as JSON text.
type jsonWriter struct {
	buf    []byte
	indent string // "" for compact output
	round  bool   // round non-integers to 15 significant digits ($string)
	// limit, when above 0, caps len(buf): past it value fails with a
	// *SizeLimitError ("output"). done, when set, ends the encoding with a
	// *TimeoutError; it is checked every 256 values.
	limit int
	done  <-chan struct{}
	ctx   interface{ Err() error }
	ticks int
}

// check enforces limit and done; value calls it once per value.
func (w *jsonWriter) check() error {
	if w.limit > 0 && len(w.buf) > w.limit {
		return &SizeLimitError{Limit: w.limit, Size: len(w.buf), What: "output", Position: -1}
	}
	if w.done == nil {
		return nil
	}
	w.ticks++
	if w.ticks&255 != 0 {
		return nil
	}
	select {
	case <-w.done:
		return &TimeoutError{Cause: w.ctx.Err()}
	default:
		return nil
	}
}

// EncodeJSON writes v as compact JSON: *Object keys in order, map keys
// sorted, numbers in JavaScript notation, functions as "". NaN and
// infinities are an error (D1001). It is safe for concurrent use.
func EncodeJSON(v any) ([]byte, error) {
	w := jsonWriter{}
	if err := w.value(v, 0); err != nil {
		return nil, err
	}
	return w.buf, nil
}

func (w *jsonWriter) newline(depth int) {
	if w.indent == "" {
		return
	}
	w.buf = append(w.buf, '\n')
	for i := 0; i < depth; i++ {
		w.buf = append(w.buf, w.indent...)
	}
}

func (w *jsonWriter) value(v any, depth int) error {
	if err := w.check(); err != nil {
		return err
	}
	if depth > maxEncodeNesting {
		return &DepthError{Limit: maxEncodeNesting, What: "JSON nesting", Position: -1}
	}
	switch x := v.(type) {
	case nil:
		w.buf = append(w.buf, "null"...)
	case bool:
		w.buf = strconv.AppendBool(w.buf, x)
	case float64:
		return w.number(x)
	case string:
		w.buf = appendJSONString(w.buf, x)
	case []any:
		return w.array(x, depth)
	case *Object:
		return w.object(x.keys, x.vals, depth)
	case map[string]any:
		keys := sortedKeys(x)
		vals := make([]any, len(keys))
		for i, k := range keys {
			vals[i] = x[k]
		}
		return w.object(keys, vals, depth)
	case undefinedType:
		w.buf = append(w.buf, "null"...)
	default:
		if isFunction(v) {
			w.buf = append(w.buf, `""`...)
			return nil
		}
		n, err := normalizeValue(v, 0)
		if err != nil {
			return err
		}
		return w.value(n, depth)
	}
	return nil
}

func (w *jsonWriter) number(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return newError("D1001", -1, "", formatNumber(f))
	}
	if w.round {
		f = roundPrecision15(f)
	}
	if f == 0 {
		w.buf = append(w.buf, '0')
		return nil
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		w.buf = strconv.AppendFloat(w.buf, f, 'f', 0, 64)
		return nil
	}
	w.buf = append(w.buf, formatNumber(f)...)
	return nil
}

func (w *jsonWriter) array(a []any, depth int) error {
	w.buf = append(w.buf, '[')
	for i, item := range a {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.newline(depth + 1)
		if err := w.value(item, depth+1); err != nil {
			return err
		}
	}
	if len(a) > 0 {
		w.newline(depth)
	}
	w.buf = append(w.buf, ']')
	return nil
}

func (w *jsonWriter) object(keys []string, vals []any, depth int) error {
	w.buf = append(w.buf, '{')
	n := 0
	for i, k := range keys {
		if _, undef := vals[i].(undefinedType); undef {
			continue
		}
		if n > 0 {
			w.buf = append(w.buf, ',')
		}
		n++
		w.newline(depth + 1)
		w.buf = appendJSONString(w.buf, k)
		w.buf = append(w.buf, ':')
		if w.indent != "" {
			w.buf = append(w.buf, ' ')
		}
		if err := w.value(vals[i], depth+1); err != nil {
			return err
		}
	}
	if n > 0 {
		w.newline(depth)
	}
	w.buf = append(w.buf, '}')
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// appendJSONString appends s as a JSON string the way JSON.stringify does:
// only quotes, backslashes and control characters are escaped. Surrogate
// code points kept in WTF-8 form are written as \u escapes and other
// invalid UTF-8 bytes as U+FFFD.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			buf = append(buf, s[start:i]...)
			if sur, ok := decodeWTF8Surrogate(s[i:]); ok {
				buf = append(buf, '\\', 'u', jsonesc.HexDigits[sur>>12&0xF], jsonesc.HexDigits[sur>>8&0xF], jsonesc.HexDigits[sur>>4&0xF], jsonesc.HexDigits[sur&0xF])
				i += 3
			} else {
				buf = append(buf, "\uFFFD"...)
				i++
			}
			start = i
			continue
		}
		buf = jsonesc.AppendASCII(append(buf, s[start:i]...), c)
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// decodeWTF8Surrogate decodes a surrogate code point stored as three WTF-8
// bytes at the start of s.
func decodeWTF8Surrogate(s string) (rune, bool) {
	if len(s) < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || s[2]&0xC0 != 0x80 {
		return 0, false
	}
	return rune(s[0]&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), true
}
