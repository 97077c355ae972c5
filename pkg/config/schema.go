package config

import (
	"reflect"
	"strings"
	"sync"

	"github.com/alternayte/queuebox/pkg/secret"
)

// The Go types are the schema: the loader walks them by reflection to
// decide whether a path segment is a struct field, a map key or a list
// index, and which text conversion a value needs.

var (
	secretType      = reflect.TypeOf(secret.Secret{})
	durationType    = reflect.TypeOf(Duration{})
	stringSliceType = reflect.TypeOf([]string(nil))
)

// derefType strips pointer levels: *int and int share one schema.
func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// isLeafType reports whether a value of t comes from one scalar.
func isLeafType(t reflect.Type) bool {
	if t == secretType || t == durationType {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64:
		return true
	}
	return false
}

// yamlName returns the key of a field as the reference spells it.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

// fieldIndex maps the lower-case key of every field of a struct type to
// the field, so lookups in any letter case cost one map access.
var fieldIndex sync.Map // reflect.Type -> map[string]reflect.StructField

// fieldByKey finds the field whose key equals name in any letter case.
// Fields tagged "-" are derived by the loader and have no key.
func fieldByKey(t reflect.Type, name string) (reflect.StructField, bool) {
	idx, ok := fieldIndex.Load(t)
	if !ok {
		m := map[string]reflect.StructField{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if n := yamlName(f); f.IsExported() && n != "" && n != "-" {
				m[strings.ToLower(n)] = f
			}
		}
		idx, _ = fieldIndex.LoadOrStore(t, m)
	}
	f, found := idx.(map[string]reflect.StructField)[strings.ToLower(name)]
	return f, found
}

// construct returns a new value of t for an entry that a source creates.
// Entries of a map, transform blocks and auth blocks start from their
// documented defaults, so a key that no source sets keeps its default.
func construct(t reflect.Type) reflect.Value {
	switch t {
	case reflect.TypeOf((*Destination)(nil)):
		return reflect.ValueOf(newDestination())
	case reflect.TypeOf((*Source)(nil)):
		return reflect.ValueOf(newSource())
	case reflect.TypeOf((*Transform)(nil)):
		return reflect.ValueOf(newTransform())
	case reflect.TypeOf((*SourceAuth)(nil)):
		return reflect.ValueOf(newSourceAuth())
	}
	if t.Kind() == reflect.Pointer {
		return reflect.New(t.Elem())
	}
	return reflect.New(t).Elem()
}
