package jsonata

// indexThreshold is the key count from which an Object keeps a hash index;
// smaller objects are searched linearly, which is faster for them.
const indexThreshold = 12

// Object is a JSON object that keeps its keys in insertion order. The
// evaluator produces *Object for every object it builds and for every
// object parsed by EvaluateJSON or DecodeJSON, so output is deterministic.
//
// An Object is not safe for concurrent mutation; concurrent reads (Get,
// Keys, Range, MarshalJSON) are safe once nobody writes. The evaluator never
// mutates an Object it did not create during the same evaluation.
type Object struct {
	keys  []string
	vals  []any
	index map[string]int
}

// NewObject returns an empty Object with room for capacity keys.
func NewObject(capacity int) *Object {
	return &Object{keys: make([]string, 0, capacity), vals: make([]any, 0, capacity)}
}

// Len returns the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Get returns the value stored under key and whether the key is present.
func (o *Object) Get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Set stores v under key. A new key goes to the end; an existing key keeps
// its position and gets the new value.
func (o *Object) Set(key string, v any) {
	if i := o.find(key); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	if o.index != nil {
		o.index[key] = len(o.keys) - 1
	} else if len(o.keys) > indexThreshold {
		o.index = make(map[string]int, len(o.keys)*2)
		for i, k := range o.keys {
			o.index[k] = i
		}
	}
}

// Delete removes key, keeping the order of the other keys.
func (o *Object) Delete(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.keys = append(o.keys[:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i], o.vals[i+1:]...)
	if o.index != nil {
		delete(o.index, key)
		for j := i; j < len(o.keys); j++ {
			o.index[o.keys[j]] = j
		}
	}
}

// Keys returns the keys in order. The caller must not modify the slice.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Range calls fn for each key and value in order until fn returns false.
func (o *Object) Range(fn func(key string, value any) bool) {
	if o == nil {
		return
	}
	for i, k := range o.keys {
		if !fn(k, o.vals[i]) {
			return
		}
	}
}

// MarshalJSON writes the object with its keys in order. Nested values
// follow the same rules as EvaluateJSON output.
func (o *Object) MarshalJSON() ([]byte, error) {
	var w jsonWriter
	if err := w.value(o, 0); err != nil {
		return nil, err
	}
	return w.buf, nil
}

// UnmarshalJSON parses a JSON object, keeping the key order of the text.
// Nested objects become *Object, arrays []any and numbers float64.
func (o *Object) UnmarshalJSON(data []byte) error {
	v, err := DecodeJSON(data)
	if err != nil {
		return err
	}
	obj, ok := v.(*Object)
	if !ok {
		return &Error{Code: "U1002", Position: -1, Message: "JSON value is not an object"}
	}
	*o = *obj
	return nil
}
