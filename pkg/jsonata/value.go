package jsonata

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
)

// Values inside the evaluator are: undefined (the undefined sentinel), nil
// (JSON null), bool, float64, string, []any, *Object, map[string]any (an
// object passed in by the caller, read-only) and functions (see
// function.go). Sequences are plain []any once they leave a path.

// undefinedType is the type of the undefined sentinel: JSONata's "no value".
// It never appears inside an array or an object.
type undefinedType struct{}

var undefined any = undefinedType{}

func isUndef(v any) bool {
	_, ok := v.(undefinedType)
	return ok
}

// typeName returns the JSONata type name of v, as $type reports it.
func typeName(v any) string {
	switch v.(type) {
	case undefinedType:
		return "undefined"
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case *Object, map[string]any:
		return "object"
	}
	if isFunction(v) {
		return "function"
	}
	return "undefined"
}

func isObject(v any) bool {
	switch v.(type) {
	case *Object, map[string]any:
		return true
	}
	return false
}

// objectGet reads key from an object value.
func objectGet(o any, key string) (any, bool) {
	switch x := o.(type) {
	case *Object:
		return x.Get(key)
	case map[string]any:
		v, ok := x[key]
		return v, ok
	}
	return nil, false
}

// objectKeys returns the keys of an object value in its order (maps: sorted).
func objectKeys(o any) []string {
	switch x := o.(type) {
	case *Object:
		return x.keys
	case map[string]any:
		return sortedKeys(x)
	}
	return nil
}

// objectLen returns the key count of an object value.
func objectLen(o any) int {
	switch x := o.(type) {
	case *Object:
		return len(x.keys)
	case map[string]any:
		return len(x)
	}
	return 0
}

// objectEach calls fn for each key/value pair in order.
func objectEach(o any, fn func(k string, v any) error) error {
	switch x := o.(type) {
	case *Object:
		for i, k := range x.keys {
			if err := fn(k, x.vals[i]); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if err := fn(k, x[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxValueNesting bounds the recursion of helpers that walk values built
// by expressions (equality, copies, flattening), keeping them far from the
// Go stack limit.
const maxValueNesting = 100000

// truthy implements the $boolean casting rules.
func truthy(v any) bool { return truthyAt(v, 0) }

func truthyAt(v any, depth int) bool {
	if depth > maxValueNesting {
		return false
	}
	switch x := v.(type) {
	case undefinedType, nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		for _, item := range x {
			if truthyAt(item, depth+1) {
				return true
			}
		}
		return false
	case *Object, map[string]any:
		return objectLen(x) > 0
	}
	return false
}

// deepEqual implements the = operator: same type and value, arrays in
// order, objects regardless of key order.
func deepEqual(a, b any) bool { return deepEqualAt(a, b, 0) }

func deepEqualAt(a, b any, depth int) bool {
	if depth > maxValueNesting {
		return false
	}
	switch x := a.(type) {
	case undefinedType:
		return isUndef(b)
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqualAt(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case *Object, map[string]any:
		if !isObject(b) || objectLen(a) != objectLen(b) {
			return false
		}
		equal := true
		_ = objectEach(a, func(k string, v any) error {
			w, ok := objectGet(b, k)
			if !ok || !deepEqualAt(v, w, depth+1) {
				equal = false
			}
			return nil
		})
		return equal
	}
	return isFunction(a) && isFunction(b) && a == b
}

// asArray returns v as an array: arrays as they are, undefined as an empty
// array and any other value as a one-element array.
func asArray(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case undefinedType:
		return nil
	}
	return []any{v}
}

// isCanonical reports whether v only holds the value types the evaluator
// uses natively, so that it can be read without copying.
func isCanonical(v any, depth int) bool {
	if depth > maxJSONNesting {
		return false
	}
	switch x := v.(type) {
	case nil, bool, float64, string:
		return true
	case []any:
		for _, item := range x {
			if !isCanonical(item, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, item := range x {
			if !isCanonical(item, depth+1) {
				return false
			}
		}
		return true
	case *Object:
		for _, item := range x.vals {
			if !isCanonical(item, depth+1) {
				return false
			}
		}
		return true
	}
	return isFunction(v)
}

// normalizeValue converts a Go value into the evaluator's value types:
// integers and json.Number to float64, typed slices and maps to []any and
// *Object (string keys only), pointers are dereferenced. Other types are an
// error.
func normalizeValue(v any, depth int) (any, error) {
	if depth > maxJSONNesting {
		return nil, &DepthError{Limit: maxJSONNesting, What: "JSON nesting", Position: -1}
	}
	switch x := v.(type) {
	case nil, bool, float64, string, undefinedType:
		return v, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("jsonata: invalid number %q: %w", string(x), err)
		}
		return f, nil
	case []any:
		out := make([]any, 0, len(x))
		for _, item := range x {
			n, err := normalizeValue(item, depth+1)
			if err != nil {
				return nil, err
			}
			if !isUndef(n) {
				out = append(out, n)
			}
		}
		return out, nil
	case map[string]any, *Object:
		obj := NewObject(objectLen(x))
		err := objectEach(x, func(k string, val any) error {
			n, err := normalizeValue(val, depth+1)
			if !isUndef(n) {
				obj.Set(k, n)
			}
			return err
		})
		return obj, err
	}
	if isFunction(v) {
		return v, nil
	}
	return normalizeReflect(reflect.ValueOf(v), depth)
}

// normalizeReflect handles the remaining kinds through reflection.
func normalizeReflect(rv reflect.Value, depth int) (any, error) {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return normalizeValue(rv.Elem().Interface(), depth+1)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			n, err := normalizeValue(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		keys := make([]string, 0, rv.Len())
		for _, k := range rv.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		obj := NewObject(len(keys))
		for _, k := range keys {
			n, err := normalizeValue(rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())).Interface(), depth+1)
			if err != nil {
				return nil, err
			}
			obj.Set(k, n)
		}
		return obj, nil
	}
	return nil, fmt.Errorf("jsonata: unsupported value type %s", rv.Type())
}

// isInteger reports whether f is a whole number.
func isInteger(f float64) bool {
	return f == math.Trunc(f) && !math.IsInf(f, 0)
}
