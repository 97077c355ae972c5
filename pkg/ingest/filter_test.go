package ingest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
)

func TestFilterRules(t *testing.T) {
	t.Parallel()
	rule := func(header string) ingest.FilterRule { return ingest.FilterRule{Header: header} }
	equals := func(h, v string) ingest.FilterRule { r := rule(h); r.Equals = str(v); return r }
	in := func(h string, v ...string) ingest.FilterRule { r := rule(h); r.In = v; return r }
	matches := func(h, v string) ingest.FilterRule { r := rule(h); r.Matches = str(v); return r }
	exists := func(h string) ingest.FilterRule { r := rule(h); r.Exists = yes(); return r }
	tests := []struct {
		name    string
		filter  ingest.FilterSpec
		headers map[string]string
		pass    bool
	}{
		{"no rules", ingest.FilterSpec{}, nil, true},
		{"equals", ingest.FilterSpec{Require: []ingest.FilterRule{equals("X-Env", "prod")}}, map[string]string{"x-env": "prod"}, true},
		{"equals, other value", ingest.FilterSpec{Require: []ingest.FilterRule{equals("X-Env", "prod")}}, map[string]string{"x-env": "dev"}, false},
		{"equals, value case differs", ingest.FilterSpec{Require: []ingest.FilterRule{equals("X-Env", "prod")}}, map[string]string{"x-env": "PROD"}, false},
		{"equals, name case differs", ingest.FilterSpec{Require: []ingest.FilterRule{equals("x-ENV", "prod")}}, map[string]string{"x-env": "prod"}, true},
		{"equals, header absent", ingest.FilterSpec{Require: []ingest.FilterRule{equals("X-Env", "")}}, nil, false},
		{"equals empty value", ingest.FilterSpec{Require: []ingest.FilterRule{equals("X-Env", "")}}, map[string]string{"x-env": ""}, true},
		{"in", ingest.FilterSpec{Require: []ingest.FilterRule{in("X-Env", "prod", "stage")}}, map[string]string{"x-env": "stage"}, true},
		{"in, no entry", ingest.FilterSpec{Require: []ingest.FilterRule{in("X-Env", "prod", "stage")}}, map[string]string{"x-env": "dev"}, false},
		{"in, header absent", ingest.FilterSpec{Require: []ingest.FilterRule{in("X-Env", "prod")}}, nil, false},
		{"matches one segment", ingest.FilterSpec{Require: []ingest.FilterRule{matches("X-Event", "order.*")}}, map[string]string{"x-event": "order.created"}, true},
		{"matches, * stops at a dot", ingest.FilterSpec{Require: []ingest.FilterRule{matches("X-Event", "order.*")}}, map[string]string{"x-event": "order.line.added"}, false},
		{"matches **", ingest.FilterSpec{Require: []ingest.FilterRule{matches("X-Event", "order.**")}}, map[string]string{"x-event": "order.line.added"}, true},
		{"matches, case differs", ingest.FilterSpec{Require: []ingest.FilterRule{matches("X-Event", "order.*")}}, map[string]string{"x-event": "Order.created"}, false},
		{"matches, header absent", ingest.FilterSpec{Require: []ingest.FilterRule{matches("X-Event", "**")}}, nil, false},
		{"exists", ingest.FilterSpec{Require: []ingest.FilterRule{exists("X-Env")}}, map[string]string{"x-env": ""}, true},
		{"exists, absent", ingest.FilterSpec{Require: []ingest.FilterRule{exists("X-Env")}}, nil, false},
		{"require all", ingest.FilterSpec{Require: []ingest.FilterRule{exists("A"), exists("B")}}, map[string]string{"a": "1"}, false},
		{"require all, both", ingest.FilterSpec{Require: []ingest.FilterRule{exists("A"), exists("B")}}, map[string]string{"a": "1", "b": "2"}, true},
		{"exclude exists", ingest.FilterSpec{Exclude: []ingest.FilterRule{exists("X-Test")}}, map[string]string{"x-test": "1"}, false},
		{"exclude exists, absent", ingest.FilterSpec{Exclude: []ingest.FilterRule{exists("X-Test")}}, nil, true},
		{"exclude equals, header absent", ingest.FilterSpec{Exclude: []ingest.FilterRule{equals("X-Env", "dev")}}, nil, true},
		{"exclude any", ingest.FilterSpec{Exclude: []ingest.FilterRule{exists("A"), exists("B")}}, map[string]string{"b": "1"}, false},
		{"require and exclude", ingest.FilterSpec{Require: []ingest.FilterRule{equals("X-Env", "prod")}, Exclude: []ingest.FilterRule{exists("X-Test")}},
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
	for _, r := range []ingest.FilterRule{
		{Header: "A"},
		{Header: "A", Equals: str("x"), Exists: yes()},
		{Header: "A", Exists: &no},
		{Header: "", Exists: yes()},
		{Header: "A", Matches: str("a.***")},
	} {
		_, err := ingest.NewFilter(&ingest.FilterSpec{Exclude: []ingest.FilterRule{r}})
		require.ErrorContains(t, err, "filter.exclude[0]")
	}
}
