package config

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// EnvPrefix starts every configuration variable.
const EnvPrefix = "QUEUEBOX_"

// maxEnvIndex bounds a list index in a variable name, so a typo such as
// QUEUEBOX_ROUTES_99999999_DESTINATION cannot allocate a huge list.
const maxEnvIndex = 1000

// Process settings that share the prefix but are not configuration keys.
// They never count as "a configuration variable is set".
var processVars = map[string]bool{
	EnvPrefix + "CONFIG_FILE": true,
	EnvPrefix + "LOG_LEVEL":   true,
	EnvPrefix + "LOG_FORMAT":  true,
}

// testVarPrefix marks the settings of the test harness.
const testVarPrefix = EnvPrefix + "TEST_"

// isConfigVar reports whether a variable name is a configuration variable.
func isConfigVar(name string) bool {
	return strings.HasPrefix(name, EnvPrefix) && !processVars[name] && !strings.HasPrefix(name, testVarPrefix)
}

// envVar is one NAME=value entry of the environment.
type envVar struct {
	name  string
	value string
}

// environMap indexes an os.Environ style list. A later entry of the same
// name wins, as it does when a shell exports a name twice.
func environMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && name != "" {
			m[name] = value
		}
	}
	return m
}

// configVars returns the configuration variables sorted by name, so the
// merge is deterministic whatever order the environment has.
func configVars(env map[string]string) []envVar {
	var out []envVar
	for name, value := range env {
		if isConfigVar(name) {
			out = append(out, envVar{name: name, value: value})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// EnvKeyToPath turns a variable name into the lower-case segments of its key
// path: the prefix goes, "__" becomes a literal "_", and every other "_"
// separates two levels. QUEUEBOX_DESTINATIONS_MY__API_BASEURL gives
// [destinations my_api baseurl]. A name without the QUEUEBOX_ prefix gives
// nil.
func EnvKeyToPath(name string) []string {
	rest, ok := strings.CutPrefix(name, EnvPrefix)
	if !ok {
		return nil
	}
	var segs []string
	var cur strings.Builder
	for i := 0; i < len(rest); i++ {
		switch {
		case rest[i] == '_' && i+1 < len(rest) && rest[i+1] == '_':
			cur.WriteByte('_')
			i++
		case rest[i] == '_':
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(rest[i])
		}
	}
	segs = append(segs, cur.String())
	for i, s := range segs {
		segs[i] = strings.ToLower(s)
	}
	return segs
}

// PathToEnvKey returns the variable that sets a YAML path. It accepts the
// dotted form with list indexes in brackets: "routes[0].topicPattern" gives
// QUEUEBOX_ROUTES_0_TOPICPATTERN and "destinations.my_api.baseUrl" gives
// QUEUEBOX_DESTINATIONS_MY__API_BASEURL.
func PathToEnvKey(path string) string {
	var segs []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			segs = append(segs, cur.String())
			cur.Reset()
		}
	}
	for _, r := range path {
		switch r {
		case '.', '[', ']':
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return segmentsToEnvKey(segs)
}

// segmentsToEnvKey writes each segment in upper case with "_" doubled and
// joins the segments with "_".
func segmentsToEnvKey(segs []string) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		parts[i] = strings.ToUpper(strings.ReplaceAll(s, "_", "__"))
	}
	return EnvPrefix + strings.Join(parts, "_")
}

// applyEnv merges the variables into the tree of the file. It returns one
// warning for each variable whose path does not exist in the schema: such
// a variable has no effect, and it is not an error.
func applyEnv(root *mapNode, vars []envVar) []string {
	var warnings []string
	configType := reflect.TypeOf(Config{})
	for _, v := range vars {
		segs := EnvKeyToPath(v.name)
		if !schemaHas(configType, segs) {
			warnings = append(warnings, "variable "+v.name+" matches no configuration key and has no effect")
			continue
		}
		setPath(root, configType, segs, v.value)
	}
	return warnings
}

// schemaHas reports whether segs lead from t to a value that a variable can
// set. It runs before setPath so that an unknown path changes nothing, not
// even the list that it would otherwise replace.
func schemaHas(t reflect.Type, segs []string) bool {
	t = derefType(t)
	if len(segs) == 0 {
		return isLeafType(t) || t == stringSliceType
	}
	if isLeafType(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		f, ok := fieldByKey(t, segs[0])
		return ok && schemaHas(f.Type, segs[1:])
	case reflect.Map:
		return segs[0] != "" && schemaHas(t.Elem(), segs[1:])
	case reflect.Slice:
		_, ok := parseEnvIndex(segs[0])
		return ok && schemaHas(t.Elem(), segs[1:])
	}
	return false
}

// setPath stores value at segs below cur and returns the node that takes
// the place of cur. Struct fields and map keys match existing keys in any
// letter case; a map key that the variable creates stays lower case. The
// first variable that reaches a list of the file replaces the whole list.
func setPath(cur node, t reflect.Type, segs []string, value string) node {
	t = derefType(t)
	if len(segs) == 0 {
		if t == stringSliceType {
			return commaList(value)
		}
		return &scalarNode{text: value}
	}
	switch t.Kind() {
	case reflect.Struct:
		f, _ := fieldByKey(t, segs[0])
		return setChild(cur, yamlName(f), f.Type, segs[1:], value)
	case reflect.Map:
		return setChild(cur, segs[0], t.Elem(), segs[1:], value)
	default: // reflect.Slice, checked by schemaHas
		s, ok := cur.(*seqNode)
		if !ok || !s.fromEnv {
			s = &seqNode{fromEnv: true}
		}
		i, _ := parseEnvIndex(segs[0])
		for len(s.items) <= i {
			s.items = append(s.items, nil)
		}
		s.items[i] = setPath(s.items[i], t.Elem(), segs[1:], value)
		return s
	}
}

func setChild(cur node, name string, t reflect.Type, segs []string, value string) node {
	m, ok := cur.(*mapNode)
	if !ok {
		m = newMapNode()
	}
	key, found := m.find(name)
	if !found {
		key = name
	}
	m.set(key, setPath(m.vals[key], t, segs, value))
	return m
}

// commaList lets QUEUEBOX_SOURCES_ORDERS_TOPICS=a,b set a whole list of
// strings in one variable, besides the documented indexed form.
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
