package config

import "strings"

// IsDefinitePath reports whether p is a definite JSONPath: one that names at
// most one value. It accepts "$" followed by any number of steps of the
// forms .name, ."quoted", ['name'], ["name"] and [0]. It refuses deep scans
// (..), wildcards (*), filters (?(...)), slices (:), unions (,) and anything
// else, because an extraction must yield a single key, type or identifier.
func IsDefinitePath(p string) bool {
	if !strings.HasPrefix(p, "$") {
		return false
	}
	for i := 1; i < len(p); {
		var ok bool
		switch p[i] {
		case '.':
			i, ok = dotStep(p, i+1)
		case '[':
			i, ok = bracketStep(p, i+1)
		}
		if !ok {
			return false
		}
	}
	return true
}

// dotStep reads the step after a dot at p[i:] and returns the index after
// it. A second dot (deep scan) or an empty name fails.
func dotStep(p string, i int) (int, bool) {
	if i >= len(p) {
		return i, false
	}
	if p[i] == '"' || p[i] == '\'' {
		return quotedName(p, i)
	}
	end := i
	for end < len(p) && isNameByte(p[end]) {
		end++
	}
	return end, end > i
}

// bracketStep reads ['name'], ["name"] or [digits] after the "[" at i-1.
func bracketStep(p string, i int) (int, bool) {
	var ok bool
	switch {
	case i >= len(p):
		return i, false
	case p[i] == '"' || p[i] == '\'':
		if i, ok = quotedName(p, i); !ok {
			return i, false
		}
	default:
		start := i
		for i < len(p) && p[i] >= '0' && p[i] <= '9' {
			i++
		}
		if i == start {
			return i, false
		}
	}
	if i >= len(p) || p[i] != ']' {
		return i, false
	}
	return i + 1, true
}

// quotedName reads a quoted name that starts at p[i] and returns the index
// after the closing quote. A backslash escapes the next byte.
func quotedName(p string, i int) (int, bool) {
	quote := p[i]
	for j := i + 1; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case quote:
			return j + 1, true
		}
	}
	return len(p), false
}

// isNameByte accepts the bytes of an unquoted member name. The refused
// bytes are JSONPath syntax or white space.
func isNameByte(b byte) bool {
	return !strings.ContainsRune(".[]*,:?()@'\" \t\r\n", rune(b))
}
