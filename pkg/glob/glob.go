// Package glob matches topics against the patterns of routes and header
// filters: `*` matches one segment (text without a dot), `**` matches any
// text, dots included, and every other character matches itself. A
// pattern matches the whole topic.
package glob

import (
	"fmt"
	"regexp"
	"strings"
)

// Pattern is a compiled glob. It is immutable and safe for concurrent use.
type Pattern struct {
	text string
	re   *regexp.Regexp
}

// Compile compiles a pattern. `***` is refused: it has no meaning.
func Compile(pattern string) (Pattern, error) {
	if strings.Contains(pattern, "***") {
		return Pattern{}, fmt.Errorf("pattern %q holds ***, which is not a valid glob", pattern)
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch {
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i++
		case pattern[i] == '*':
			b.WriteString("[^.]+")
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	b.WriteString("$")
	return Pattern{text: pattern, re: regexp.MustCompile(b.String())}, nil
}

// MustCompile is Compile for patterns known to be valid.
func MustCompile(pattern string) Pattern {
	p, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return p
}

// Match reports whether the whole topic matches.
func (p Pattern) Match(topic string) bool { return p.re.MatchString(topic) }

// String returns the pattern as written.
func (p Pattern) String() string { return p.text }
