package redact

import "unicode/utf8"

// Truncate returns the longest prefix of text that holds at most maxBytes
// bytes and does not end inside a UTF-8 encoded rune. A maxBytes of zero or
// less gives the empty string. Bytes that are not valid UTF-8 are cut like
// single bytes. Redact before truncating: a cut can split a secret so that
// Redact no longer recognises it.
func Truncate(text string, maxBytes int) string {
	if maxBytes <= 0 {
		return ""
	}
	if len(text) <= maxBytes {
		return text
	}
	// Walk back over at most UTFMax-1 continuation bytes to the start of
	// the rune that the cut falls into.
	start := maxBytes
	for start > 0 && maxBytes-start < utf8.UTFMax-1 && !utf8.RuneStart(text[start]) {
		start--
	}
	if !utf8.RuneStart(text[start]) {
		return text[:maxBytes] // a run of stray continuation bytes
	}
	// Cut before that rune only when it is a valid rune that crosses the
	// limit; an invalid sequence is cut at the limit like single bytes.
	if r, size := utf8.DecodeRuneInString(text[start:]); r != utf8.RuneError || size > 1 {
		if start+size > maxBytes {
			return text[:start]
		}
	}
	return text[:maxBytes]
}
