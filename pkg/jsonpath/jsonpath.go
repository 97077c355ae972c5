// Package jsonpath evaluates the definite JSONPaths of the source keys
// idempotencyKeyPath, eventTypePath and aggregateIdPath against a decoded
// JSON document.
//
// A definite path names at most one value. The grammar is the one that the
// configuration loader accepts (config.IsDefinitePath): "$" followed by any
// number of steps of the forms .name, ."quoted", .'quoted', ['name'],
// ["name"] and [index]. Inside quotes a backslash makes the next byte
// literal, so ['it\'s'] names the member it's. Deep scans, wildcards,
// filters, slices and unions do not compile.
package jsonpath

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Path is a compiled definite JSONPath. The zero value is the root path
// "$". A Path is immutable and safe for concurrent use.
type Path struct {
	text  string
	steps []step
}

// step selects one member of an object (index < 0) or one element of an
// array (index >= 0).
type step struct {
	name  string
	index int
}

// Compile parses a definite JSONPath. The error names the path and the
// offset of the first byte that does not parse.
func Compile(path string) (Path, error) {
	if !strings.HasPrefix(path, "$") {
		return Path{}, fmt.Errorf("JSONPath %q must start with $", path)
	}
	p := Path{text: path}
	for i := 1; i < len(path); {
		var (
			s  step
			ok bool
		)
		switch path[i] {
		case '.':
			s, i, ok = dotStep(path, i+1)
		case '[':
			s, i, ok = bracketStep(path, i+1)
		}
		if !ok {
			return Path{}, fmt.Errorf("JSONPath %q is not a definite path: it does not parse at offset %d", path, i)
		}
		p.steps = append(p.steps, s)
	}
	return p, nil
}

// MustCompile is Compile for paths known to be valid, such as constants in
// tests. It panics on an error.
func MustCompile(path string) Path {
	p, err := Compile(path)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the path as written.
func (p Path) String() string {
	if p.text == "" {
		return "$"
	}
	return p.text
}

// Find returns the value that the path names in doc, a document decoded by
// encoding/json into any (see Decode). A name step reads a member of an
// object and an index step an element of an array; a step of the wrong
// kind, a missing member and an index past the end find nothing. A member
// whose value is null is found, with the value nil.
func (p Path) Find(doc any) (any, bool) {
	cur := doc
	for _, s := range p.steps {
		var ok bool
		if cur, ok = s.apply(cur); !ok {
			return nil, false
		}
	}
	return cur, true
}

func (s step) apply(v any) (any, bool) {
	if s.index >= 0 {
		arr, ok := v.([]any)
		if !ok || s.index >= len(arr) {
			return nil, false
		}
		return arr[s.index], true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	member, ok := obj[s.name]
	return member, ok
}

// dotStep reads the step after a dot that starts at p[i]: a bare name or a
// quoted one. It returns the index after the step.
func dotStep(p string, i int) (step, int, bool) {
	if i < len(p) && (p[i] == '"' || p[i] == '\'') {
		name, end, ok := quotedName(p, i)
		return step{name: name, index: -1}, end, ok
	}
	end := i
	for end < len(p) && isNameByte(p[end]) {
		end++
	}
	return step{name: p[i:end], index: -1}, end, end > i
}

// bracketStep reads ['name'], ["name"] or [digits] after the "[" at p[i-1].
func bracketStep(p string, i int) (step, int, bool) {
	var (
		s  step
		ok bool
	)
	switch {
	case i >= len(p):
		return s, i, false
	case p[i] == '"' || p[i] == '\'':
		s.index = -1
		if s.name, i, ok = quotedName(p, i); !ok {
			return s, i, false
		}
	default:
		start := i
		for i < len(p) && p[i] >= '0' && p[i] <= '9' {
			i++
		}
		if i == start {
			return s, i, false
		}
		// An index too large for an int names no element of any array.
		n, err := strconv.Atoi(p[start:i])
		if err != nil {
			n = math.MaxInt
		}
		s.index = n
	}
	if i >= len(p) || p[i] != ']' {
		return s, i, false
	}
	return s, i + 1, true
}

// quotedName reads the quoted name that starts at p[i] and returns the
// name without its quotes and escapes, and the index after the closing
// quote.
func quotedName(p string, i int) (string, int, bool) {
	quote := p[i]
	var b strings.Builder
	for j := i + 1; j < len(p); j++ {
		switch p[j] {
		case '\\':
			if j+1 < len(p) {
				j++
				b.WriteByte(p[j])
			}
		case quote:
			return b.String(), j + 1, true
		default:
			b.WriteByte(p[j])
		}
	}
	return "", len(p), false
}

// isNameByte accepts the bytes of a bare member name: anything but JSONPath
// syntax and white space, the same set as the configuration loader.
func isNameByte(b byte) bool {
	return !strings.ContainsRune(".[]*,:?()@'\" \t\r\n", rune(b))
}
