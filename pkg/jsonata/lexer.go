package jsonata

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokType classifies a lexical token.
type tokType uint8

const (
	tEnd    tokType = iota // end of input
	tOp                    // operator or punctuation
	tString                // string literal
	tNumber                // number literal
	tName                  // field name, bare or `quoted`
	tVar                   // variable reference $name ($ and $$ too)
	tRegex                 // regular expression literal
	tValue                 // true, false or null
)

// token is one lexical token. pos is the byte offset of its first byte.
type token struct {
	typ    tokType
	val    string  // operator text, string value, name, variable name or regex source
	num    float64 // number value
	lit    any     // literal value for tValue
	flags  string  // regex flags
	pos    int
	quoted bool // a `backquoted` name
}

// lexer turns expression source into tokens on demand.
type lexer struct {
	src  string
	pos  int
	prev *token // previous token, used to tell a regex from a division
}

// operators lists the multi-character operators, longest first per prefix.
var multiOps = []string{"..", ":=", "!=", "<=", ">=", "~>", "**", "?:", "??"}

// singleOps is the set of one-character operators.
const singleOps = ".[]{}(),@#;:?+-*/%|=<>^&!~"

// isNameBreak reports whether r ends a bare name.
func isNameBreak(r rune) bool {
	if r <= ' ' {
		return true
	}
	return strings.ContainsRune(singleOps, r) || r == '"' || r == '\'' || r == '`' || r == '$'
}

// regexAllowed reports whether a '/' at the current position starts a
// regular expression: true unless the previous token ends an operand.
func (l *lexer) regexAllowed() bool {
	if l.prev == nil {
		return true
	}
	switch l.prev.typ {
	case tOp:
		switch l.prev.val {
		case ")", "]", "}":
			return false
		}
		return true
	case tName:
		// The keyword operators are followed by an operand.
		return !l.prev.quoted && (l.prev.val == "and" || l.prev.val == "or" || l.prev.val == "in")
	}
	return false
}

// next returns the next token or a syntax error.
func (l *lexer) next() (*token, error) {
	t, err := l.scan()
	if err == nil {
		l.prev = t
	}
	return t, err
}

func (l *lexer) skipSpaceAndComments() error {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			l.pos++
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '*':
			end := strings.Index(l.src[l.pos+2:], "*/")
			if end < 0 {
				return newError("S0106", runeOffset(l.src, l.pos), "")
			}
			l.pos += end + 4
		default:
			return nil
		}
	}
	return nil
}

func (l *lexer) scan() (*token, error) {
	if err := l.skipSpaceAndComments(); err != nil {
		return nil, err
	}
	start := l.pos
	if l.pos >= len(l.src) {
		return &token{typ: tEnd, pos: start}, nil
	}
	c := l.src[l.pos]
	switch {
	case c == '/' && l.regexAllowed():
		return l.scanRegex()
	case c == '"' || c == '\'':
		return l.scanString(c)
	case c == '`':
		end := strings.IndexByte(l.src[l.pos+1:], '`')
		if end < 0 {
			return nil, newError("S0105", runeOffset(l.src, start), "")
		}
		l.pos += end + 2
		return &token{typ: tName, val: l.src[start+1 : start+1+end], pos: start, quoted: true}, nil
	case c >= '0' && c <= '9':
		return l.scanNumber()
	case c == '$':
		l.pos++
		if l.pos < len(l.src) && l.src[l.pos] == '$' {
			l.pos++
			return &token{typ: tVar, val: "$", pos: start}, nil
		}
		name := l.scanName()
		return &token{typ: tVar, val: name, pos: start}, nil
	}
	for _, op := range multiOps {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.pos += len(op)
			return &token{typ: tOp, val: op, pos: start}, nil
		}
	}
	if strings.IndexByte(singleOps, c) >= 0 {
		l.pos++
		return &token{typ: tOp, val: string(c), pos: start}, nil
	}
	name := l.scanName()
	if name == "" {
		r, size := utf8.DecodeRuneInString(l.src[l.pos:])
		l.pos += size
		return nil, newError("S0204", runeOffset(l.src, start), string(r), string(r))
	}
	switch name {
	case "true":
		return &token{typ: tValue, val: name, lit: true, pos: start}, nil
	case "false":
		return &token{typ: tValue, val: name, lit: false, pos: start}, nil
	case "null":
		return &token{typ: tValue, val: name, lit: nil, pos: start}, nil
	}
	return &token{typ: tName, val: name, pos: start}, nil
}

// scanName consumes a bare name (possibly empty).
func (l *lexer) scanName() string {
	start := l.pos
	for l.pos < len(l.src) {
		r, size := utf8.DecodeRuneInString(l.src[l.pos:])
		if isNameBreak(r) {
			break
		}
		l.pos += size
	}
	return l.src[start:l.pos]
}

func (l *lexer) scanNumber() (*token, error) {
	start := l.pos
	digits := func() {
		for l.pos < len(l.src) && l.src[l.pos] >= '0' && l.src[l.pos] <= '9' {
			l.pos++
		}
	}
	digits()
	if l.pos+1 < len(l.src) && l.src[l.pos] == '.' && l.src[l.pos+1] >= '0' && l.src[l.pos+1] <= '9' {
		l.pos++
		digits()
	}
	if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		save := l.pos
		l.pos++
		if l.pos < len(l.src) && (l.src[l.pos] == '+' || l.src[l.pos] == '-') {
			l.pos++
		}
		if l.pos < len(l.src) && l.src[l.pos] >= '0' && l.src[l.pos] <= '9' {
			digits()
		} else {
			l.pos = save
		}
	}
	text := l.src[start:l.pos]
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, newError("S0102", runeOffset(l.src, start), text, text)
	}
	return &token{typ: tNumber, num: f, val: text, pos: start}, nil
}

func (l *lexer) scanString(quote byte) (*token, error) {
	start := l.pos
	l.pos++
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == quote:
			l.pos++
			return &token{typ: tString, val: b.String(), pos: start}, nil
		case c == '\\':
			if err := l.scanEscape(&b); err != nil {
				return nil, err
			}
		default:
			b.WriteByte(c)
			l.pos++
		}
	}
	return nil, newError("S0101", runeOffset(l.src, start), "")
}

// scanEscape decodes one backslash escape at l.pos into b. A lone UTF-16
// surrogate is kept in its WTF-8 form so that functions that reject it
// (such as $encodeUrl) can still see it.
func (l *lexer) scanEscape(b *strings.Builder) error {
	at := l.pos
	l.pos++
	if l.pos >= len(l.src) {
		return newError("S0101", runeOffset(l.src, at), "")
	}
	c := l.src[l.pos]
	l.pos++
	switch c {
	case '"', '\\', '/', '\'':
		b.WriteByte(c)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, ok := l.hex4()
		if !ok {
			return newError("S0104", runeOffset(l.src, at), "")
		}
		if r >= 0xD800 && r <= 0xDBFF && strings.HasPrefix(l.src[l.pos:], "\\u") {
			save := l.pos
			l.pos += 2
			if lo, ok := l.hex4(); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				b.WriteRune(0x10000 + (r-0xD800)<<10 + (lo - 0xDC00))
				return nil
			}
			l.pos = save
		}
		writeWTF8(b, r)
	default:
		return newError("S0103", runeOffset(l.src, at), string(c), string(c))
	}
	return nil
}

// writeWTF8 writes r, encoding surrogate code points as three bytes the way
// WTF-8 does (Go's encoder would replace them with U+FFFD).
func writeWTF8(b *strings.Builder, r rune) {
	if r >= 0xD800 && r <= 0xDFFF {
		b.WriteByte(byte(0xE0 | (r >> 12)))
		b.WriteByte(byte(0x80 | ((r >> 6) & 0x3F)))
		b.WriteByte(byte(0x80 | (r & 0x3F)))
		return
	}
	b.WriteRune(r)
}

func (l *lexer) hex4() (rune, bool) {
	if l.pos+4 > len(l.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(l.src[l.pos:l.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	l.pos += 4
	return rune(v), true
}

// scanRegex consumes /pattern/flags.
func (l *lexer) scanRegex() (*token, error) {
	start := l.pos
	l.pos++
	inClass := false
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\\':
			l.pos += 2
			continue
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			pattern := l.src[start+1 : l.pos]
			if pattern == "" {
				return nil, newError("S0301", runeOffset(l.src, start), "")
			}
			l.pos++
			fstart := l.pos
			for l.pos < len(l.src) && l.src[l.pos] >= 'a' && l.src[l.pos] <= 'z' {
				l.pos++
			}
			return &token{typ: tRegex, val: pattern, flags: l.src[fstart:l.pos], pos: start}, nil
		}
		l.pos++
	}
	return nil, newError("S0302", runeOffset(l.src, start), "")
}

// runeOffset converts a byte offset in s to a code point offset.
func runeOffset(s string, byteOff int) int {
	if byteOff > len(s) {
		byteOff = len(s)
	}
	return utf8.RuneCountInString(s[:byteOff])
}
