package yamlenv

import (
	"reflect"
	"strconv"
	"strings"
)

// maxEnvIndex bounds a list index in a variable name, so a typo such as
// APP_ROUTES_99999999_DESTINATION cannot allocate a huge list.
const maxEnvIndex = 1000

// Var is one NAME=value entry of the environment.
type Var struct {
	Name  string
	Value string
}

// Environ indexes an os.Environ style list. A later entry of the same
// name wins, as it does when a shell exports a name twice.
func Environ(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && name != "" {
			m[name] = value
		}
	}
	return m
}

// ApplyEnv merges the variables, in their order, into the tree of the
// file. It returns one warning for each variable whose path does not exist
// in the schema: such a variable has no effect, and it is not an error.
func (s *Schema) ApplyEnv(root *Map, vars []Var) []string {
	var warnings []string
	for _, v := range vars {
		segs := s.Segments(v.Name)
		if !s.Has(segs) {
			warnings = append(warnings, "variable "+v.Name+" matches no configuration key and has no effect")
			continue
		}
		s.setPath(root, s.Root, segs, v.Value)
	}
	return warnings
}

// Has reports whether segs (see Segments) lead from the root to a value
// that a variable can set. ApplyEnv asks it first, so that an unknown
// path changes nothing, not even the list it would otherwise replace.
func (s *Schema) Has(segs []string) bool { return s.has(s.Root, segs) }

func (s *Schema) has(t reflect.Type, segs []string) bool {
	t = derefType(t)
	if len(segs) == 0 {
		return s.isLeaf(t) || t == stringSliceType
	}
	if s.isLeaf(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		f, ok := FieldByKey(t, segs[0])
		return ok && s.has(f.Type, segs[1:])
	case reflect.Map:
		return segs[0] != "" && s.has(t.Elem(), segs[1:])
	case reflect.Slice:
		_, ok := parseEnvIndex(segs[0])
		return ok && s.has(t.Elem(), segs[1:])
	}
	return false
}

// setPath stores value at segs below cur and returns the node that takes
// the place of cur. Struct fields and map keys match existing keys in any
// letter case; a map key that the variable creates stays lower case. The
// first variable that reaches a list of the file replaces the whole list.
func (s *Schema) setPath(cur node, t reflect.Type, segs []string, value string) node {
	t = derefType(t)
	if len(segs) == 0 {
		if t == stringSliceType {
			return commaList(value)
		}
		return &scalarNode{text: value}
	}
	switch t.Kind() {
	case reflect.Struct:
		f, _ := FieldByKey(t, segs[0])
		return s.setChild(cur, KeyOf(f), f.Type, segs[1:], value)
	case reflect.Map:
		return s.setChild(cur, segs[0], t.Elem(), segs[1:], value)
	default: // reflect.Slice, checked by Has
		seq, ok := cur.(*seqNode)
		if !ok || !seq.fromEnv {
			seq = &seqNode{fromEnv: true}
		}
		i, _ := parseEnvIndex(segs[0])
		for len(seq.items) <= i {
			seq.items = append(seq.items, nil)
		}
		seq.items[i] = s.setPath(seq.items[i], t.Elem(), segs[1:], value)
		return seq
	}
}

func (s *Schema) setChild(cur node, name string, t reflect.Type, segs []string, value string) node {
	m, ok := cur.(*Map)
	if !ok {
		m = NewMap()
	}
	key, found := m.find(name)
	if !found {
		key = name
	}
	m.set(key, s.setPath(m.vals[key], t, segs, value))
	return m
}

// commaList lets APP_SOURCES_ORDERS_TOPICS=a,b set a whole list of strings
// in one variable, besides the indexed form.
func commaList(value string) *seqNode {
	s := &seqNode{fromEnv: true}
	for _, part := range strings.Split(value, ",") {
		s.items = append(s.items, &scalarNode{text: strings.TrimSpace(part)})
	}
	return s
}

func parseEnvIndex(seg string) (int, bool) {
	if seg == "" || strings.TrimLeft(seg, "0123456789") != "" {
		return 0, false
	}
	i, err := strconv.Atoi(seg)
	return i, err == nil && i <= maxEnvIndex
}
