// Package jsonesc holds the escapes that every hand-written JSON string
// encoder of QueueBox shares: those of an ASCII byte. What an encoder does
// with non-ASCII text (invalid UTF-8, surrogates, U+2028) differs by its
// contract and stays with it.
package jsonesc

// HexDigits are the lower-case hexadecimal digits that a \u escape is
// written with, four of them after the u.
const HexDigits = "0123456789abcdef"

// AppendASCII appends the escape of the ASCII byte c inside a JSON string:
// \" and \\, the short forms of \n, \r, \t, \b and \f, and \u00XX for
// any other byte below 0x20 (and for any other byte the caller chose to
// escape, such as < > & for HTML safety).
func AppendASCII(buf []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(buf, '\\', c)
	case '\n':
		return append(buf, '\\', 'n')
	case '\r':
		return append(buf, '\\', 'r')
	case '\t':
		return append(buf, '\\', 't')
	case '\b':
		return append(buf, '\\', 'b')
	case '\f':
		return append(buf, '\\', 'f')
	}
	return append(buf, '\\', 'u', '0', '0', HexDigits[c>>4], HexDigits[c&0xF])
}
