package ingest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
)

func TestFilterRules(t *testing.T) {
	t.Parallel()
	rule := func(header string) config.FilterRule { return config.FilterRule{Header: header} }
	equals := func(h, v string) config.FilterRule { r := rule(h); r.Equals = str(v); return r }
	in := func(h string, v ...string) config.FilterRule { r := rule(h); r.In = v; return r }
	matches := func(h, v string) config.FilterRule { r := rule(h); r.Matches = str(v); return r }
	exists := func(h string) config.FilterRule { r := rule(h); r.Exists = yes(); return r }
	tests := []struct {
		name    string
		filter  config.Filter
		headers map[string]string
		pass    bool
	}{
		{"no rules", config.Filter{}, nil, true},
		{"equals", config.Filter{Require: []config.FilterRule{equals("X-Env", "prod")}}, map[string]string{"x-env": "prod"}, true},
		{"equals, other value", config.Filter{Require: []config.FilterRule{equals("X-Env", "prod")}}, map[string]string{"x-env": "dev"}, false},
		{"equals, value case differs", config.Filter{Require: []config.FilterRule{equals("X-Env", "prod")}}, map[string]string{"x-env": "PROD"}, false},
		{"equals, name case differs", config.Filter{Require: []config.FilterRule{equals("x-ENV", "prod")}}, map[string]string{"x-env": "prod"}, true},
		{"equals, header absent", config.Filter{Require: []config.FilterRule{equals("X-Env", "")}}, nil, false},
		{"equals empty value", config.Filter{Require: []config.FilterRule{equals("X-Env", "")}}, map[string]string{"x-env": ""}, true},
		{"in", config.Filter{Require: []config.FilterRule{in("X-Env", "prod", "stage")}}, map[string]string{"x-env": "stage"}, true},
		{"in, no entry", config.Filter{Require: []config.FilterRule{in("X-Env", "prod", "stage")}}, map[string]string{"x-env": "dev"}, false},
		{"in, header absent", config.Filter{Require: []config.FilterRule{in("X-Env", "prod")}}, nil, false},
		{"matches one segment", config.Filter{Require: []config.FilterRule{matches("X-Event", "order.*")}}, map[string]string{"x-event": "order.created"}, true},
		{"matches, * stops at a dot", config.Filter{Require: []config.FilterRule{matches("X-Event", "order.*")}}, map[string]string{"x-event": "order.line.added"}, false},
		{"matches **", config.Filter{Require: []config.FilterRule{matches("X-Event", "order.**")}}, map[string]string{"x-event": "order.line.added"}, true},
		{"matches, case differs", config.Filter{Require: []config.FilterRule{matches("X-Event", "order.*")}}, map[string]string{"x-event": "Order.created"}, false},
		{"matches, header absent", config.Filter{Require: []config.FilterRule{matches("X-Event", "**")}}, nil, false},
		{"exists", config.Filter{Require: []config.FilterRule{exists("X-Env")}}, map[string]string{"x-env": ""}, true},
		{"exists, absent", config.Filter{Require: []config.FilterRule{exists("X-Env")}}, nil, false},
		{"require all", config.Filter{Require: []config.FilterRule{exists("A"), exists("B")}}, map[string]string{"a": "1"}, false},
		{"require all, both", config.Filter{Require: []config.FilterRule{exists("A"), exists("B")}}, map[string]string{"a": "1", "b": "2"}, true},
		{"exclude exists", config.Filter{Exclude: []config.FilterRule{exists("X-Test")}}, map[string]string{"x-test": "1"}, false},
		{"exclude exists, absent", config.Filter{Exclude: []config.FilterRule{exists("X-Test")}}, nil, true},
		{"exclude equals, header absent", config.Filter{Exclude: []config.FilterRule{equals("X-Env", "dev")}}, nil, true},
		{"exclude any", config.Filter{Exclude: []config.FilterRule{exists("A"), exists("B")}}, map[string]string{"b": "1"}, false},
		{"require and exclude", config.Filter{Require: []config.FilterRule{equals("X-Env", "prod")}, Exclude: []config.FilterRule{exists("X-Test")}},
			map[string]string{"x-env": "prod", "x-test": "1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := ingest.NewFilter(&tt.filter)
			require.NoError(t, err)
			require.Equal(t, tt.pass, f.Pass(tt.headers))
		})
	}
}

func TestNewFilterRefusesBrokenRules(t *testing.T) {
	t.Parallel()
	no := false
	for _, r := range []config.FilterRule{
		{Header: "A"},
		{Header: "A", Equals: str("x"), Exists: yes()},
		{Header: "A", Exists: &no},
		{Header: "", Exists: yes()},
		{Header: "A", Matches: str("a.***")},
	} {
		_, err := ingest.NewFilter(&config.Filter{Exclude: []config.FilterRule{r}})
		require.ErrorContains(t, err, "filter.exclude[0]")
	}
}
