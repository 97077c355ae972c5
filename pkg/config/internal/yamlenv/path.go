package yamlenv

import (
	"strconv"
	"strings"
)

// FieldError is one configuration problem. It names the YAML path of the
// key and the variable that sets it, so an operator can fix the problem
// in either source. Msg never holds a secret value.
type FieldError struct {
	Path string // for example routes[0].destination
	Env  string // for example APP_ROUTES_0_DESTINATION
	Msg  string
}

// Error renders "path (VARIABLE): message".
func (e *FieldError) Error() string {
	return e.Path + " (" + e.Env + "): " + e.Msg
}

// Path is the path of a key as segments. A list index is stored as "[i]"
// so that String can render routes[0].topicPattern.
type Path []string

// Key returns the path of a child key (or of a chain of keys). It never
// shares the backing array with p, so sibling paths built from one parent
// stay independent.
func (p Path) Key(names ...string) Path {
	out := make(Path, len(p), len(p)+len(names))
	copy(out, p)
	return append(out, names...)
}

// Index returns the path of item i of the list at p.
func (p Path) Index(i int) Path { return p.Key("[" + strconv.Itoa(i) + "]") }

// String renders the YAML path, for example sources.orders.topics[0].
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		if i > 0 && !strings.HasPrefix(s, "[") {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// Var renders the variable name of the path.
func (s *Schema) Var(p Path) string {
	segs := make([]string, len(p))
	for i, seg := range p {
		segs[i] = strings.Trim(seg, "[]")
	}
	return s.varOf(segs)
}

// VarOfPath returns the variable that sets a YAML path. It accepts the
// dotted form with list indexes in brackets: "routes[0].topicPattern"
// gives APP_ROUTES_0_TOPICPATTERN and "destinations.my_api.baseUrl" gives
// APP_DESTINATIONS_MY__API_BASEURL.
func (s *Schema) VarOfPath(path string) string {
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
	return s.varOf(segs)
}

// varOf writes each segment in upper case with "_" doubled and joins the
// segments with "_" after the prefix.
func (s *Schema) varOf(segs []string) string {
	parts := make([]string, len(segs))
	for i, seg := range segs {
		parts[i] = strings.ToUpper(strings.ReplaceAll(seg, "_", "__"))
	}
	return s.Prefix + strings.Join(parts, "_")
}

// Segments turns a variable name into the lower-case segments of its key
// path: the prefix goes, "__" becomes a literal "_", and every other "_"
// separates two levels. APP_DESTINATIONS_MY__API_BASEURL gives
// [destinations my_api baseurl]. A name without the prefix gives nil.
func (s *Schema) Segments(name string) []string {
	rest, ok := strings.CutPrefix(name, s.Prefix)
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
	for i, seg := range segs {
		segs[i] = strings.ToLower(seg)
	}
	return segs
}
