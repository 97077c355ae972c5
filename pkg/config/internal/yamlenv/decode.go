package yamlenv

import (
	"reflect"
	"strconv"
	"strings"
)

// Decoded is what Decode reports besides the value it wrote.
type Decoded struct {
	// Errs holds one *FieldError per key that failed to decode.
	Errs []error
	// Warnings name the keys that match no field; they are ignored.
	Warnings []string
	// Present holds the path (Path.String) of every key a source wrote,
	// because some defaults depend on whether a key is absent or blank.
	Present map[string]bool
}

// Decode writes tree into v, which holds a value of the root type with
// its defaults: a key that no source sets keeps its default. Keys match
// in any letter case. Text values resolve ${NAME} and ${NAME:-fallback}
// placeholders from environ, secret values read their file: references
// with readFile, and each text converts by the type of its field.
func (s *Schema) Decode(tree *Map, v reflect.Value, environ map[string]string, readFile func(string) ([]byte, error)) Decoded {
	d := &decoder{
		schema:      s,
		environ:     environ,
		readFile:    readFile,
		secretFiles: map[string]string{},
		present:     map[string]bool{},
	}
	d.decode(tree, v, Path{})
	return Decoded{Errs: d.errs, Warnings: d.warnings, Present: d.present}
}

// decoder writes a merged tree into a value by reflection.
type decoder struct {
	schema      *Schema
	environ     map[string]string
	readFile    func(string) ([]byte, error)
	secretFiles map[string]string
	present     map[string]bool
	errs        []error
	warnings    []string
}

// add records the problem of the key at path.
func (d *decoder) add(path Path, format string, args ...any) {
	d.errs = append(d.errs, d.schema.Error(path, format, args...))
}

// decode writes n into v. An absent node leaves v as it is, so the default
// that v already holds survives.
func (d *decoder) decode(n node, v reflect.Value, path Path) {
	if n == nil {
		return
	}
	t := v.Type()
	switch {
	case t.Kind() == reflect.Pointer:
		d.decodePointer(n, v, path)
	case d.schema.isLeaf(t):
		d.decodeLeaf(n, v, path)
	case t.Kind() == reflect.Struct:
		d.decodeStruct(n, v, path)
	case t.Kind() == reflect.Map:
		d.decodeMap(n, v, path)
	case t.Kind() == reflect.Slice:
		d.decodeSlice(n, v, path)
	}
}

func isNull(n node) bool {
	s, ok := n.(*scalarNode)
	return ok && s.null
}

// decodePointer treats an explicit null as "not set" (nil), which keeps the
// documented meaning of optional keys such as signaturePrefix.
func (d *decoder) decodePointer(n node, v reflect.Value, path Path) {
	if isNull(n) {
		v.Set(reflect.Zero(v.Type()))
		return
	}
	if !v.IsNil() {
		d.decode(n, v.Elem(), path)
		return
	}
	// A value that fails to convert must stay absent, or validation would
	// report the zero value a second time.
	before := len(d.errs)
	v.Set(d.schema.construct(v.Type()))
	d.decode(n, v.Elem(), path)
	if d.schema.isLeaf(v.Type().Elem()) && len(d.errs) > before {
		v.Set(reflect.Zero(v.Type()))
	}
}

func (d *decoder) decodeStruct(n node, v reflect.Value, path Path) {
	m, ok := n.(*Map)
	if !ok {
		if !isNull(n) {
			d.add(path, "must be a mapping of keys, got %s", describe(n))
		}
		return
	}
	seen := map[string]string{}
	for _, key := range m.keys {
		f, found := FieldByKey(v.Type(), key)
		if !found {
			d.warnings = append(d.warnings, "unknown key "+path.Key(key).String()+" is ignored")
			continue
		}
		name := KeyOf(f)
		if first, dup := seen[name]; dup {
			d.add(path.Key(name), "is written twice, as %s and %s", first, key)
		}
		seen[name] = key
		d.present[path.Key(name).String()] = true
		d.decode(m.vals[key], v.FieldByIndex(f.Index), path.Key(name))
	}
}

// decodeMap fills a map of entries. Each entry starts from the defaults of
// its type; an entry written with no keys (`orders:`) still exists.
func (d *decoder) decodeMap(n node, v reflect.Value, path Path) {
	m, ok := n.(*Map)
	if !ok {
		if !isNull(n) {
			d.add(path, "must be a mapping, got %s", describe(n))
		}
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	elemType := v.Type().Elem()
	for _, key := range m.keys {
		elem := d.schema.construct(elemType)
		child := m.vals[key]
		if !(elemType.Kind() == reflect.Pointer && isNull(child)) {
			d.decode(child, elem, path.Key(key))
		}
		v.SetMapIndex(reflect.ValueOf(key), elem)
	}
}

func (d *decoder) decodeSlice(n node, v reflect.Value, path Path) {
	s, ok := n.(*seqNode)
	if !ok {
		if !isNull(n) {
			d.add(path, "must be a list, got %s", describe(n))
		}
		return
	}
	out := reflect.MakeSlice(v.Type(), len(s.items), len(s.items))
	for i, item := range s.items {
		d.decode(item, out.Index(i), path.Index(i))
	}
	v.Set(out)
}

// decodeLeaf converts one scalar. An explicit null sets a string or a secret
// to empty and leaves a number, a boolean or a duration at its default.
func (d *decoder) decodeLeaf(n node, v reflect.Value, path Path) {
	s, ok := n.(*scalarNode)
	if !ok {
		d.add(path, "must be a single value, got %s", describe(n))
		return
	}
	t := v.Type()
	if s.null {
		if t == d.schema.Secret || t.Kind() == reflect.String {
			v.Set(reflect.Zero(t))
		}
		return
	}
	text, ok := d.expand(path, s.text)
	if !ok {
		return
	}
	if t == d.schema.Secret {
		if text, ok = d.secretText(path, text); !ok {
			return
		}
	}
	d.convert(text, v, path)
}

// convert parses text by the type of v: with the Parse function of the
// schema, else by its kind. Messages of the kinds quote the text, which
// is safe because secrets always have a Parse function.
func (d *decoder) convert(text string, v reflect.Value, path Path) {
	if parse, ok := d.schema.Parse[v.Type()]; ok {
		val, err := parse(text)
		if err != nil {
			d.add(path, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(val))
		return
	}
	switch {
	case v.Kind() == reflect.String:
		v.SetString(text)
	case v.Kind() == reflect.Bool:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			d.add(path, "must be true or false, got %q", text)
		}
	default: // reflect.Int, reflect.Int64
		i, err := strconv.ParseInt(strings.TrimSpace(text), 10, v.Type().Bits())
		if err != nil {
			d.add(path, "must be a whole number%s, got %q", unitOf(path), text)
			return
		}
		v.SetInt(i)
	}
}

// unitOf names the unit of a key that ends in Ms, the suffix of a
// duration in milliseconds.
func unitOf(path Path) string {
	if len(path) > 0 && strings.HasSuffix(path[len(path)-1], "Ms") {
		return " of milliseconds"
	}
	return ""
}

func describe(n node) string {
	switch n := n.(type) {
	case *Map:
		return "a mapping"
	case *seqNode:
		return "a list"
	case *scalarNode:
		if n.null {
			return "null"
		}
		return "a single value"
	}
	return "nothing"
}
