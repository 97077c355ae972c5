package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/alternayte/queuebox/pkg/config/internal/yamlenv"
)

//go:generate go run ./internal/gendocs -root ../..

// The key table. The loader decodes into the Go types of types.go, starts
// from Default() and builds new entries with construct, and the table
// below walks exactly those: a field that the loader reads appears here
// with the default the loader gives it. What the walk cannot see (the
// rules of validate*.go) comes from keyRules, and a test fails when a key
// has no rule entry, when an entry names no key, and when the validator
// disagrees with a rule's bounds or values. The configuration reference
// and the JSON Schema are both rendered from Keys.

// Placeholders of a key path pattern: the name of a map entry and the
// index of a list item.
const (
	nameSegment  = "<name>"
	indexSegment = "[<n>]"
)

// Key is one configuration key of the table.
type Key struct {
	// Path is the YAML path pattern, for example
	// destinations.<name>.baseUrl or routes[<n>].destination.
	Path string
	// Var is the variable that sets it, for example
	// QUEUEBOX_DESTINATIONS_<NAME>_BASEURL.
	Var string
	// Type is the value type: string, integer, boolean, secret, duration,
	// list of strings, list of secrets or map of strings.
	Type string
	// Default is the value a key takes when no source sets it, rendered
	// as YAML would write it; empty when it has none.
	Default string
	// DefaultText states in words a default that the loader derives from
	// the entry kind or another key; Default is empty then.
	DefaultText string
	// Kinds lists the entry kinds that read the key; empty means every
	// kind of its entry.
	Kinds []string
	// Min, Max and Enum are the bounds and values the validator accepts;
	// nil and empty mean unchecked.
	Min, Max *int64
	Enum     []string
	// Rule states in words what else the validator checks.
	Rule string
	// Selects names the kinds whose required keys include this one: an
	// entry with all of them set is of that kind.
	Selects []string
	// Optional is true for a key whose absence differs from every value
	// (a pointer field such as server.managementPort).
	Optional bool

	segs yamlenv.Path
}

// Keys returns every key of queuebox.yml in the order of the types, with
// the defaults of Default() and construct and the rules of keyRules.
// The result is a fresh slice on each call.
func Keys() []Key {
	var out []Key
	walkKeys(reflect.TypeOf(Config{}), reflect.ValueOf(Default()), nil, &out)
	for i := range out {
		if r, ok := ruleOf(out[i].Path); ok {
			r.apply(&out[i])
		}
		out[i].Selects = selectingKinds(out[i].segs)
	}
	return out
}

// kindTables are the entries whose kind the loader selects from the keys
// they set, with the loader's own table of required keys.
var kindTables = map[string][]kindRule{
	"destinations.<name>":      destinationKinds,
	"destinations.<name>.auth": destinationAuthKinds,
	"sources.<name>":           sourceKinds,
	"sources.<name>.auth":      sourceAuthKinds,
	"admin.auth":               sourceAuthKinds,
	"admin.viewer":             sourceAuthKinds,
}

// selectingKinds returns the kinds that require the key at path.
func selectingKinds(path yamlenv.Path) []string {
	if len(path) < 2 {
		return nil
	}
	var out []string
	for _, r := range kindTables[path[:len(path)-1].String()] {
		for _, k := range r.keys {
			if k == path[len(path)-1] {
				out = append(out, r.kind)
			}
		}
	}
	return out
}

// walkKeys appends the leaf keys of struct type t. def holds the defaults
// of t, or is invalid when t has none of its own.
func walkKeys(t reflect.Type, def reflect.Value, path yamlenv.Path, out *[]Key) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := yamlenv.KeyOf(f)
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		var fv reflect.Value
		if def.IsValid() {
			fv = def.Field(i)
		}
		walkField(f.Type, fv, path.Key(name), out)
	}
}

// walkField appends the keys of one field of type ft at path.
func walkField(ft reflect.Type, def reflect.Value, path yamlenv.Path, out *[]Key) {
	if typ, ok := leafType(ft); ok {
		*out = append(*out, Key{
			Path: path.String(), Var: patternVar(path), Type: typ, segs: path,
			Default: formatDefault(def), Optional: ft.Kind() == reflect.Pointer,
		})
		return
	}
	switch ft.Kind() {
	case reflect.Pointer:
		if !def.IsValid() || def.IsNil() {
			def = constructed(ft)
		}
		if def.IsValid() {
			def = def.Elem()
		}
		walkKeys(ft.Elem(), def, path, out)
	case reflect.Struct:
		walkKeys(ft, def, path, out)
	case reflect.Map:
		walkField(ft.Elem(), constructed(ft.Elem()), path.Key(nameSegment), out)
	case reflect.Slice:
		walkField(ft.Elem(), constructed(ft.Elem()), path.Key(indexSegment), out)
	default:
		panic(fmt.Sprintf("config key %s: no rule for the Go type %s", path, ft))
	}
}

// constructed returns the starting value that the loader gives a new entry
// of type t (see construct), or an invalid Value for the zero value.
func constructed(t reflect.Type) reflect.Value {
	v, _ := construct(t)
	return v
}

// leafType names the value type of a key that one scalar (or a list or
// map of scalars) sets, as the decoder reads it.
func leafType(t reflect.Type) (string, bool) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	switch {
	case base == secretType:
		return "secret", true
	case base == durationType:
		return "duration", true
	case base.Kind() == reflect.String:
		return "string", true
	case base.Kind() == reflect.Bool:
		return "boolean", true
	case base.Kind() == reflect.Int, base.Kind() == reflect.Int64:
		return "integer", true
	case base.Kind() == reflect.Slice && base.Elem() == secretType:
		return "list of secrets", true
	case base.Kind() == reflect.Slice && base.Elem().Kind() == reflect.String:
		return "list of strings", true
	case base.Kind() == reflect.Map && base.Elem().Kind() == reflect.String:
		return "map of strings", true
	}
	return "", false
}

// patternVar renders the variable of a path pattern; the placeholders
// come out as <NAME> and <N>.
func patternVar(path yamlenv.Path) string { return schema.Var(path) }

// formatDefault renders a default value as YAML would write it; zero
// strings, nil pointers, empty lists and maps and secrets have none.
func formatDefault(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		return formatDefault(v.Elem())
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	}
	if v.Type() == durationType {
		return v.Interface().(Duration).Text
	}
	return ""
}

// keyRule is what keyRules says of one key pattern.
type keyRule struct {
	// min and max bound an integer key, inclusive.
	min, max *int64
	// enum lists the accepted values, in their exact letter case.
	enum []string
	// kinds names the entry kinds that read the key.
	kinds []string
	// def replaces the walked default where the loader derives it later
	// (from the entry kind or another key).
	def string
	// rule states in words what the validator checks beyond the above.
	rule string
}

func (r keyRule) apply(k *Key) {
	k.Min, k.Max, k.Enum, k.Kinds, k.Rule = r.min, r.max, r.enum, r.kinds, r.rule
	if r.def != "" {
		k.Default, k.DefaultText = "", r.def
	}
}

// ruleOf finds the rule of a key pattern: its own entry, else the .*
// entry of its block.
func ruleOf(path string) (keyRule, bool) {
	if r, ok := keyRules[path]; ok {
		return r, true
	}
	if i := strings.LastIndexByte(path, '.'); i > 0 {
		r, ok := keyRules[path[:i]+".*"]
		return r, ok
	}
	return keyRule{}, false
}

// Rule constructors keep keyRules one line per key.
func bound(n int64) *int64 { return &n }

var (
	above0   = keyRule{min: bound(1)}
	atLeast0 = keyRule{min: bound(0)}
	aPort    = keyRule{min: bound(1), max: bound(65535)}
)

func (r keyRule) of(kinds ...string) keyRule { r.kinds = kinds; return r }
func (r keyRule) says(rule string) keyRule   { r.rule = rule; return r }
func (r keyRule) dflt(def string) keyRule    { r.def = def; return r }
func oneOf(values ...string) keyRule         { return keyRule{enum: values} }
func note(rule string) keyRule               { return keyRule{rule: rule} }
func only(kinds ...string) keyRule           { return keyRule{kinds: kinds} }

// RuleText renders the validation of a key in words, for the reference.
func (k Key) RuleText() string {
	var parts []string
	for _, kind := range k.Selects {
		parts = append(parts, "required by the "+kind+" kind")
	}
	switch {
	case k.Min != nil && k.Max != nil:
		parts = append(parts, fmt.Sprintf("%d to %d", *k.Min, *k.Max))
	case k.Min != nil && *k.Min == 1:
		parts = append(parts, "above 0")
	case k.Min != nil:
		parts = append(parts, fmt.Sprintf("at least %d", *k.Min))
	}
	if len(k.Enum) > 0 {
		parts = append(parts, "one of "+strings.Join(k.Enum, ", "))
	}
	if k.Rule != "" {
		parts = append(parts, k.Rule)
	}
	return strings.Join(parts, "; ")
}

// sortedKinds lists the kinds of a key group in the loader's table order.
func kindOrder(rules []kindRule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.kind
	}
	return out
}
