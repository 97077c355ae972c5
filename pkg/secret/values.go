package secret

import "reflect"

var secretType = reflect.TypeOf(Secret{})

// Values walks a value (a configuration struct) and returns every
// non-empty Secret it holds, through structs, pointers, maps and slices.
// The redactor of delivery errors masks these values.
func Values(v any) []string {
	var out []string
	collect(reflect.ValueOf(v), &out)
	return out
}

func collect(v reflect.Value, out *[]string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			collect(v.Elem(), out)
		}
	case reflect.Struct:
		if v.Type() == secretType {
			if s := v.Interface().(Secret); !s.IsEmpty() {
				*out = append(*out, s.Reveal())
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				collect(v.Field(i), out)
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			collect(iter.Value(), out)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			collect(v.Index(i), out)
		}
	}
}
