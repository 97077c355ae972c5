package jsonata

import "unicode/utf8"

// compareStrings orders strings by UTF-16 code units, as JavaScript does.
// Byte order equals code point order for UTF-8; the two only differ when a
// character outside the Basic Multilingual Plane meets one in U+E000-U+FFFF.
func compareStrings(a, b string) int {
	if a == b {
		return 0
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return cmpOrdered(len(a), len(b))
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	ka, kb := utf16Lead(ra), utf16Lead(rb)
	if ka != kb {
		return cmpOrdered(ka, kb)
	}
	return cmpOrdered(int(ra), int(rb))
}

// utf16Lead returns the first UTF-16 code unit of r.
func utf16Lead(r rune) int {
	if r >= 0x10000 {
		return 0xD800 + int((r-0x10000)>>10)
	}
	return int(r)
}
