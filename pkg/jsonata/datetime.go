package jsonata

import (
	"strconv"
	"strings"
	"unicode"
)

// dtMarker is one part of a date/time picture string (XPath
// format-dateTime): literal text, or a [component presentation,width]
// marker.
type dtMarker struct {
	literal   string
	component rune // 0 for literal text
	pres      string
	num       *intPicture // numeric presentation
	name      string      // "N", "n" or "Nn" for names
	minW      int         // -1 when absent
	maxW      int         // -1 when absent or *
	widthSet  bool
	zulu      bool // t modifier on a time zone: Z for UTC
}

const dtComponents = "YMDdFWwXxHhPmsfZzCE"

// parseDatePicture splits a picture into literals and markers. [[ and ]]
// stand for literal brackets; white space inside markers is ignored.
func parseDatePicture(picture string) ([]dtMarker, error) {
	if err := checkBrackets(picture); err != nil {
		return nil, err
	}
	var out []dtMarker
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, dtMarker{literal: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(picture); i++ {
		c := picture[i]
		switch {
		case c == '[' && i+1 < len(picture) && picture[i+1] == '[':
			lit.WriteByte('[')
			i++
		case c == ']' && i+1 < len(picture) && picture[i+1] == ']':
			lit.WriteByte(']')
			i++
		case c == '[':
			end := strings.IndexByte(picture[i:], ']')
			if end < 0 {
				return nil, newError("D3135", -1, "")
			}
			flush()
			m, err := parseMarker(picture[i+1 : i+end])
			if err != nil {
				return nil, err
			}
			out = append(out, m)
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return out, nil
}

// checkBrackets fails with D3135 when a marker is not closed.
func checkBrackets(picture string) error {
	for i := 0; i < len(picture); i++ {
		switch {
		case picture[i] == '[' && i+1 < len(picture) && picture[i+1] == '[':
			i++
		case picture[i] == '[':
			end := strings.IndexByte(picture[i:], ']')
			if end < 0 {
				return newError("D3135", -1, "")
			}
			i += end
		}
	}
	return nil
}

func parseMarker(body string) (dtMarker, error) {
	body = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, body)
	m := dtMarker{minW: -1, maxW: -1}
	if body == "" {
		return m, newError("D3132", -1, "", `""`)
	}
	comp := []rune(body)[0]
	if !strings.ContainsRune(dtComponents, comp) {
		return m, newError("D3132", -1, "", string(comp))
	}
	m.component = comp
	rest := body[len(string(comp)):]
	if i := strings.LastIndexByte(rest, ','); i >= 0 {
		m.widthSet = true
		m.minW, m.maxW = parseWidth(rest[i+1:])
		rest = rest[:i]
	}
	m.pres = rest
	return m, m.analysePresentation()
}

// parseWidth reads "min-max" where either may be *.
func parseWidth(w string) (int, int) {
	lo, hi, hasHi := strings.Cut(w, "-")
	minW, maxW := -1, -1
	if n, err := strconv.Atoi(lo); err == nil {
		minW = n
	}
	if hasHi {
		if n, err := strconv.Atoi(hi); err == nil {
			maxW = n
		}
	}
	return minW, maxW
}

// defaultPresentation is the XPath default for each component.
func defaultPresentation(c rune) string {
	switch c {
	case 'F', 'P', 'C', 'E':
		return "n"
	case 'm', 's':
		return "01"
	case 'Z', 'z':
		return "01:01"
	}
	return "1"
}

func (m *dtMarker) analysePresentation() error {
	p := m.pres
	explicit := p != ""
	if !explicit {
		p = defaultPresentation(m.component)
	}
	if m.component == 'Z' || m.component == 'z' {
		if strings.HasSuffix(p, "t") {
			m.zulu = true
			p = strings.TrimSuffix(p, "t")
		}
		m.pres = p
		if digitCount(p) > 4 {
			return newError("D3134", -1, "")
		}
		return nil
	}
	switch p {
	case "N", "n", "Nn":
		switch m.component {
		case 'M', 'F', 'x', 'P', 'C', 'E':
		default:
			return newError("D3133", -1, "", string(m.component))
		}
		m.name = p
		m.pres = p
		return nil
	}
	if m.component == 'P' || m.component == 'C' || m.component == 'E' {
		m.name = "n"
		return nil
	}
	pic := p
	ordinal := false
	if strings.HasSuffix(pic, "o") && len(pic) > 1 {
		ordinal = true
		pic = pic[:len(pic)-1]
	}
	num, err := parseIntPicture(pic)
	if err != nil {
		return err
	}
	num.ordinal = ordinal
	m.num = num
	m.pres = p
	if !explicit {
		m.pres = ""
	}
	return nil
}

func digitCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

var monthNames = []string{"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}

var dayNames = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// applyNameCase renders a name in the case of the N, n or Nn modifier and
// truncates it to the maximum width.
func (m *dtMarker) applyNameCase(name string) string {
	if m.maxW > 0 && len(name) > m.maxW {
		name = name[:m.maxW]
	}
	switch m.name {
	case "N":
		return strings.ToUpper(name)
	case "n":
		return strings.ToLower(name)
	}
	return name
}
