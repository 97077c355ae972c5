package config

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/alternayte/queuebox/pkg/secret"
)

// decoder writes a merged tree into a Config by reflection. It matches keys
// in any letter case, resolves placeholders and file: secrets, converts
// text by the type of the target field, and records which keys a source
// set, because some defaults depend on whether a key is absent or blank.
type decoder struct {
	environ     map[string]string
	readFile    func(string) ([]byte, error)
	secretFiles map[string]string
	present     map[string]bool
	errs        problems
	warnings    []string
}

func newDecoder(environ map[string]string, readFile func(string) ([]byte, error)) *decoder {
	return &decoder{
		environ:     environ,
		readFile:    readFile,
		secretFiles: map[string]string{},
		present:     map[string]bool{},
	}
}

// decode writes n into v. An absent node leaves v as it is, so the default
// that v already holds survives.
func (d *decoder) decode(n node, v reflect.Value, path keyPath) {
	if n == nil {
		return
	}
	t := v.Type()
	switch {
	case t.Kind() == reflect.Pointer:
		d.decodePointer(n, v, path)
	case isLeafType(t):
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
func (d *decoder) decodePointer(n node, v reflect.Value, path keyPath) {
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
	before := len(d.errs.errs)
	v.Set(construct(v.Type()))
	d.decode(n, v.Elem(), path)
	if isLeafType(v.Type().Elem()) && len(d.errs.errs) > before {
		v.Set(reflect.Zero(v.Type()))
	}
}

func (d *decoder) decodeStruct(n node, v reflect.Value, path keyPath) {
	m, ok := n.(*mapNode)
	if !ok {
		if !isNull(n) {
			d.errs.add(path, "must be a mapping of keys, got %s", describe(n))
		}
		return
	}
	seen := map[string]string{}
	for _, key := range m.keys {
		f, found := fieldByKey(v.Type(), key)
		if !found {
			d.warnings = append(d.warnings, "unknown key "+path.key(key).String()+" is ignored")
			continue
		}
		name := yamlName(f)
		if first, dup := seen[name]; dup {
			d.errs.add(path.key(name), "is written twice, as %s and %s", first, key)
		}
		seen[name] = key
		d.present[path.key(name).String()] = true
		d.decode(m.vals[key], v.FieldByIndex(f.Index), path.key(name))
	}
}

// decodeMap fills a map of entries. Each entry starts from the defaults of
// its type; an entry written with no keys (`orders:`) still exists.
func (d *decoder) decodeMap(n node, v reflect.Value, path keyPath) {
	m, ok := n.(*mapNode)
	if !ok {
		if !isNull(n) {
			d.errs.add(path, "must be a mapping, got %s", describe(n))
		}
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	elemType := v.Type().Elem()
	for _, key := range m.keys {
		elem := construct(elemType)
		child := m.vals[key]
		if !(elemType.Kind() == reflect.Pointer && isNull(child)) {
			d.decode(child, elem, path.key(key))
		}
		v.SetMapIndex(reflect.ValueOf(key), elem)
	}
}

func (d *decoder) decodeSlice(n node, v reflect.Value, path keyPath) {
	s, ok := n.(*seqNode)
	if !ok {
		if !isNull(n) {
			d.errs.add(path, "must be a list, got %s", describe(n))
		}
		return
	}
	out := reflect.MakeSlice(v.Type(), len(s.items), len(s.items))
	for i, item := range s.items {
		d.decode(item, out.Index(i), path.index(i))
	}
	v.Set(out)
}

// decodeLeaf converts one scalar. An explicit null sets a string or a secret
// to empty and leaves a number, a boolean or a duration at its default.
func (d *decoder) decodeLeaf(n node, v reflect.Value, path keyPath) {
	s, ok := n.(*scalarNode)
	if !ok {
		d.errs.add(path, "must be a single value, got %s", describe(n))
		return
	}
	t := v.Type()
	if s.null {
		if t == secretType || t.Kind() == reflect.String {
			v.Set(reflect.Zero(t))
		}
		return
	}
	text, ok := d.expand(path, s.text)
	if !ok {
		return
	}
	if t == secretType {
		if text, ok = d.secretText(path, text); ok {
			v.Set(reflect.ValueOf(secret.New(text)))
		}
		return
	}
	d.convert(text, v, path)
}

// convert parses text by the kind of v. Messages quote the text, which is
// safe because secrets never reach this function.
func (d *decoder) convert(text string, v reflect.Value, path keyPath) {
	switch {
	case v.Type() == durationType:
		dur, err := ParseDuration(strings.TrimSpace(text))
		if err != nil {
			d.errs.add(path, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(dur))
	case v.Kind() == reflect.String:
		v.SetString(text)
	case v.Kind() == reflect.Bool:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			d.errs.add(path, "must be true or false, got %q", text)
		}
	default: // reflect.Int, reflect.Int64
		i, err := strconv.ParseInt(strings.TrimSpace(text), 10, v.Type().Bits())
		if err != nil {
			d.errs.add(path, "must be a whole number%s, got %q", unitOf(path), text)
			return
		}
		v.SetInt(i)
	}
}

// unitOf names the unit of a key that ends in Ms.
func unitOf(path keyPath) string {
	if len(path) > 0 && strings.HasSuffix(path[len(path)-1], "Ms") {
		return " of milliseconds"
	}
	return ""
}

func describe(n node) string {
	switch n := n.(type) {
	case *mapNode:
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
