package ingest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/alternayte/queuebox/pkg/glob"
)

// Filter is the compiled header filter of a source. A message passes when
// it matches every require rule and no exclude rule. A header name matches
// in any letter case; a value matches in its exact letter case. A rule
// with equals, in or matches does not match a message without the header.
// The nil *Filter passes every message. A Filter is immutable and safe for
// concurrent use.
type Filter struct {
	require, exclude []rule
}

// rule tests the value of one header; name is lower case.
type rule struct {
	name string
	test func(value string) bool
}

// NewFilter compiles a filter spec; nil gives the nil *Filter. A rule
// must set exactly one of equals, in, matches and exists: true.
func NewFilter(cfg *FilterSpec) (*Filter, error) {
	if cfg == nil || len(cfg.Require)+len(cfg.Exclude) == 0 {
		return nil, nil
	}
	f := &Filter{}
	var err error
	if f.require, err = compileRules("require", cfg.Require); err != nil {
		return nil, err
	}
	if f.exclude, err = compileRules("exclude", cfg.Exclude); err != nil {
		return nil, err
	}
	return f, nil
}

func compileRules(list string, rules []FilterRule) ([]rule, error) {
	out := make([]rule, 0, len(rules))
	for i, r := range rules {
		c, err := compileRule(r)
		if err != nil {
			return nil, fmt.Errorf("filter.%s[%d]: %w", list, i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func compileRule(r FilterRule) (rule, error) {
	c := rule{name: strings.ToLower(strings.TrimSpace(r.Header))}
	if c.name == "" {
		return c, fmt.Errorf("header is required")
	}
	var tests []func(string) bool
	if r.Equals != nil {
		want := *r.Equals
		tests = append(tests, func(v string) bool { return v == want })
	}
	if r.In != nil {
		list := slices.Clone(r.In)
		tests = append(tests, func(v string) bool { return slices.Contains(list, v) })
	}
	if r.Matches != nil {
		p, err := glob.Compile(*r.Matches)
		if err != nil {
			return c, fmt.Errorf("matches: %w", err)
		}
		tests = append(tests, p.Match)
	}
	if r.Exists != nil && *r.Exists {
		tests = append(tests, func(string) bool { return true })
	}
	if len(tests) != 1 {
		return c, fmt.Errorf("set exactly one of equals, in, matches and exists: true")
	}
	c.test = tests[0]
	return c, nil
}

// Pass reports whether a message with these headers passes. The keys of
// headers must be lower case, as receivedHeaders builds them.
func (f *Filter) Pass(headers map[string]string) bool {
	if f == nil {
		return true
	}
	for _, r := range f.require {
		if !r.match(headers) {
			return false
		}
	}
	for _, r := range f.exclude {
		if r.match(headers) {
			return false
		}
	}
	return true
}

func (r rule) match(headers map[string]string) bool {
	v, ok := headers[r.name]
	return ok && r.test(v)
}
