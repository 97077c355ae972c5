package jsonpath_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/jsonpath"
)

const doc = `{
	"id": "evt_1",
	"n": 12345678901234567890,
	"price": 1.50,
	"ok": true,
	"nothing": null,
	"data": {"object": {"customer": "cus_9"}},
	"items": [{"sku": "a"}, {"sku": "b"}],
	"odd name": 1,
	"it's": 2,
	"say \"hi\"": 3,
	"0": "zero"
}`

func TestFind(t *testing.T) {
	t.Parallel()
	v, err := jsonpath.Decode([]byte(doc))
	require.NoError(t, err)
	tests := []struct {
		path  string
		want  any
		found bool
	}{
		{"$.id", "evt_1", true},
		{"$['id']", "evt_1", true},
		{`$["id"]`, "evt_1", true},
		{`$."id"`, "evt_1", true},
		{"$.'id'", "evt_1", true},
		{"$.n", json.Number("12345678901234567890"), true},
		{"$.price", json.Number("1.50"), true},
		{"$.ok", true, true},
		{"$.nothing", nil, true},
		{"$.data.object.customer", "cus_9", true},
		{"$['data']['object'].customer", "cus_9", true},
		{"$.items[1].sku", "b", true},
		{"$.items[0]", map[string]any{"sku": "a"}, true},
		{"$['odd name']", json.Number("1"), true},
		{`$['it\'s']`, json.Number("2"), true},
		{`$["say \"hi\""]`, json.Number("3"), true},
		{"$.0", "zero", true},
		{"$['0']", "zero", true},
		{"$.missing", nil, false},
		{"$.items[2]", nil, false},
		{"$.items[99999999999999999999999]", nil, false},
		{"$.items.sku", nil, false},
		{"$[0]", nil, false},
		{"$.id.more", nil, false},
		{"$.nothing.more", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			p, err := jsonpath.Compile(tt.path)
			require.NoError(t, err)
			got, found := p.Find(v)
			require.Equal(t, tt.found, found)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestFindRootAndArrays(t *testing.T) {
	t.Parallel()
	v, err := jsonpath.Decode([]byte(`[["x", "y"]]`))
	require.NoError(t, err)
	got, ok := jsonpath.MustCompile("$[0][1]").Find(v)
	require.True(t, ok)
	require.Equal(t, "y", got)
	got, ok = jsonpath.MustCompile("$").Find(v)
	require.True(t, ok)
	require.Equal(t, v, got)
	got, ok = jsonpath.Path{}.Find("scalar")
	require.True(t, ok)
	require.Equal(t, "scalar", got)
	require.Equal(t, "$", jsonpath.Path{}.String())
}

// Every path the configuration loader accepts compiles, and every path it
// refuses does not, so a loaded configuration never fails at mount.
func TestCompileAgreesWithTheLoader(t *testing.T) {
	t.Parallel()
	paths := []string{
		"$", "$.id", "$.a.b.c", "$['a']", `$["a"]`, "$[0]", "$[12].x", `$."a.b"`, "$.'a'",
		`$['a\'b']`, "$.a-b", "$.ünï",
		"", "id", "$.", "$..id", "$.*", "$[*]", "$[0:1]", "$[0,1]", "$[?(@.a)]", "$['a'", "$[", "$[]",
		"$[a]", "$.a b", "$a", "$.a[", `$."open`, "$['a']x", "$.[0]", "$ .a",
	}
	for _, p := range paths {
		_, err := jsonpath.Compile(p)
		require.Equal(t, config.IsDefinitePath(p), err == nil, "path %q: %v", p, err)
	}
}

func TestCompileErrorNamesThePath(t *testing.T) {
	t.Parallel()
	_, err := jsonpath.Compile("$..id")
	require.ErrorContains(t, err, `"$..id"`)
	_, err = jsonpath.Compile("id")
	require.ErrorContains(t, err, "must start with $")
	require.Panics(t, func() { jsonpath.MustCompile("$[") })
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		body  string
		valid bool
	}{
		{"object", `{"a":1}`, true},
		{"array", `[1,2]`, true},
		{"scalar", `"text"`, true},
		{"surrounding white space", " \n{\"a\":1}\n ", true},
		{"empty", ``, false},
		{"blank", `   `, false},
		{"truncated", `{"a":`, false},
		{"two documents", `{}{}`, false},
		{"trailing text", `{"a":1} x`, false},
		{"form data", `a=1&b=2`, false},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := jsonpath.Decode([]byte(tt.body))
			if tt.valid {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, jsonpath.ErrInvalidJSON)
		})
	}
}

func TestScalarString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
		ok   bool
	}{
		{"evt_1", "evt_1", true},
		{"", "", true},
		{json.Number("1.50"), "1.50", true},
		{json.Number("1e3"), "1e3", true},
		{json.Number("-7"), "-7", true},
		{float64(42), "42", true},
		{0.5, "0.5", true},
		{true, "true", true},
		{false, "false", true},
		{nil, "", false},
		{map[string]any{"a": "b"}, "", false},
		{[]any{"a"}, "", false},
	}
	for _, tt := range tests {
		got, ok := jsonpath.ScalarString(tt.in)
		require.Equal(t, tt.ok, ok, "%#v", tt.in)
		require.Equal(t, tt.want, got, "%#v", tt.in)
	}
}
