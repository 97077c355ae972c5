package yamlenv

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Schema describes the configuration that a tree decodes into. The Go
// types are the schema: the engine walks them by reflection to decide
// whether a path segment is a struct field (its yaml tag, in any letter
// case), a map key or a list index, and which text conversion a value
// needs. A Schema is read-only once built and safe for concurrent use.
type Schema struct {
	// Prefix starts every variable name, for example "APP_".
	Prefix string
	// Root is the struct type of the whole configuration.
	Root reflect.Type
	// Secret is the type of the secret fields, or nil. Their text may be
	// a file: reference that the decoder reads, an explicit null empties
	// them, and a conversion error never quotes their text.
	Secret reflect.Type
	// Parse converts the text of a leaf type other than string, bool,
	// int and int64 (Secret needs one too). An error becomes the message
	// of the key.
	Parse map[reflect.Type]func(text string) (any, error)
	// New returns the starting value of a map entry or a pointer that a
	// source creates, for types whose entries start from defaults; false
	// means the zero value.
	New func(t reflect.Type) (reflect.Value, bool)
}

var stringSliceType = reflect.TypeOf([]string(nil))

// derefType strips pointer levels: *int and int share one schema.
func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// isLeaf reports whether a value of t comes from one scalar.
func (s *Schema) isLeaf(t reflect.Type) bool {
	if _, ok := s.Parse[t]; ok {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64:
		return true
	}
	return false
}

// KeyOf returns the key of a field as its yaml tag spells it.
func KeyOf(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

// fieldIndex maps the lower-case key of every field of a struct type to
// the field, so lookups in any letter case cost one map access.
var fieldIndex sync.Map // reflect.Type -> map[string]reflect.StructField

// FieldByKey finds the field of struct type t whose key equals name in any
// letter case. Fields tagged "-" and untagged fields have no key.
func FieldByKey(t reflect.Type, name string) (reflect.StructField, bool) {
	idx, ok := fieldIndex.Load(t)
	if !ok {
		m := map[string]reflect.StructField{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if n := KeyOf(f); f.IsExported() && n != "" && n != "-" {
				m[strings.ToLower(n)] = f
			}
		}
		idx, _ = fieldIndex.LoadOrStore(t, m)
	}
	f, found := idx.(map[string]reflect.StructField)[strings.ToLower(name)]
	return f, found
}

// construct returns a new value of t for an entry that a source creates:
// the value of New when it has one, else the zero value.
func (s *Schema) construct(t reflect.Type) reflect.Value {
	if s.New != nil {
		if v, ok := s.New(t); ok {
			return v
		}
	}
	if t.Kind() == reflect.Pointer {
		return reflect.New(t.Elem())
	}
	return reflect.New(t).Elem()
}

// Error returns the problem of the key at path, naming its variable.
func (s *Schema) Error(path Path, format string, args ...any) *FieldError {
	return &FieldError{Path: path.String(), Env: s.Var(path), Msg: fmt.Sprintf(format, args...)}
}
