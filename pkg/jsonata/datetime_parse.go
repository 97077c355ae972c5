package jsonata

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// dtFields collects the components read from a timestamp; -1 is unset.
type dtFields struct {
	year, month, day, yday, hour, hour12, minute, second, ms int
	pm, hasPM                                                bool
	offset                                                   int
	weekBased                                                bool
}

// parseDateTime reads str with the picture markers. ok is false when the
// text does not match the picture or specifies no component.
func parseDateTime(str string, markers []dtMarker, now time.Time) (float64, bool, error) {
	f := dtFields{year: -1, month: -1, day: -1, yday: -1, hour: -1, hour12: -1, minute: -1, second: -1, ms: -1}
	pos := 0
	any := false
	for i := range markers {
		m := &markers[i]
		if m.component == 0 {
			if !strings.HasPrefix(str[pos:], m.literal) {
				return 0, false, nil
			}
			pos += len(m.literal)
			continue
		}
		adjacent := i+1 < len(markers) && markers[i+1].component != 0
		n, ok := m.parseComponent(str[pos:], adjacent, &f)
		if !ok {
			return 0, false, nil
		}
		pos += n
		any = true
	}
	if pos != len(str) || !any {
		return 0, false, nil
	}
	return f.millis(now)
}

// parseComponent consumes one component at the start of s.
func (m *dtMarker) parseComponent(s string, adjacent bool, f *dtFields) (int, bool) {
	switch m.component {
	case 'P':
		low := strings.ToLower(s)
		if strings.HasPrefix(low, "am") || strings.HasPrefix(low, "pm") {
			f.pm, f.hasPM = low[0] == 'p', true
			return 2, true
		}
		return 0, false
	case 'Z', 'z':
		return parseZoneText(s, m.component == 'z', &f.offset)
	case 'F':
		if m.name != "" {
			return matchName(s, dayNames, m.maxW)
		}
	case 'M':
		if m.name != "" {
			n, idx := matchNameIndex(s, monthNames, m.maxW)
			f.month = idx + 1
			return n, idx >= 0
		}
	case 'C', 'E':
		return len("ISO"), strings.HasPrefix(s, "ISO")
	}
	if m.component == 'f' {
		return parseFraction(s, &f.ms)
	}
	n, v, ok := m.readNumber(s, adjacent)
	if !ok {
		return 0, false
	}
	f.set(m.component, v)
	return n, true
}

func (f *dtFields) set(c rune, v int) {
	switch c {
	case 'Y':
		f.year = v
	case 'M':
		f.month = v
	case 'D':
		f.day = v
	case 'd':
		f.yday = v
	case 'H':
		f.hour = v
	case 'h':
		f.hour12 = v
	case 'm':
		f.minute = v
	case 's':
		f.second = v
	case 'W', 'w', 'X', 'x':
		f.weekBased = true
	}
}

var numberWordRE = regexp.MustCompile(`(?i)^(?:(?:` + numberWordAlternation() + `)(?:[ ,-]+(?:and[ ]+)?)?)+`)

// numberWordAlternation lists the cardinal and ordinal number words,
// longest first so that the regexp prefers whole words.
func numberWordAlternation() string {
	var words []string
	for _, w := range append(append([]string{}, smallWords...), tensWords[2:]...) {
		words = append(words, w, ordinalOf(w))
	}
	for _, w := range []string{"hundred", "thousand", "million", "billion", "trillion"} {
		words = append(words, w, w+"th")
	}
	sort.Slice(words, func(i, j int) bool { return len(words[i]) > len(words[j]) })
	return strings.Join(words, "|")
}

// readNumber consumes a numeric component in the marker's presentation.
func (m *dtMarker) readNumber(s string, adjacent bool) (int, int, bool) {
	p := m.num
	var text string
	switch p.style {
	case styleWordsUpper, styleWordsLower, styleWordsTitle:
		text = strings.TrimRight(numberWordRE.FindString(s), " ,-")
		if strings.HasSuffix(strings.ToLower(text), " and") {
			text = text[:len(text)-4]
		}
	case styleRomanUpper, styleRomanLower:
		text = leadingRun(s, func(r rune) bool { return strings.ContainsRune("IVXLCDMivxlcdm", r) })
	case styleAlphaUpper, styleAlphaLower:
		text = leadingRun(s, unicode.IsLetter)
	default:
		limit := -1
		if m.maxW > 0 {
			limit = m.maxW
		} else if adjacent {
			limit = p.mandatory + p.optional
		}
		text = s[:p.digitRuneLen(s)]
		if limit > 0 && utf8.RuneCountInString(text) > limit {
			text = string([]rune(text)[:limit])
		}
	}
	if text == "" {
		return 0, 0, false
	}
	v, ok := p.parse(text)
	if !ok {
		return 0, 0, false
	}
	n := len(text)
	if p.ordinal && p.style == styleDecimal && len(s) >= n+2 {
		n += 2
	}
	return n, int(v), true
}

func leadingRun(s string, keep func(rune) bool) string {
	for i, r := range s {
		if !keep(r) {
			return s[:i]
		}
	}
	return s
}

func matchName(s string, names []string, maxW int) (int, bool) {
	n, idx := matchNameIndex(s, names, maxW)
	return n, idx >= 0
}

// matchNameIndex matches a full name or its abbreviation (maxW letters, or
// three when the full name does not match) at the start of s.
func matchNameIndex(s string, names []string, maxW int) (int, int) {
	low := strings.ToLower(s)
	for i, name := range names {
		if maxW <= 0 && strings.HasPrefix(low, strings.ToLower(name)) {
			return len(name), i
		}
	}
	abbr := maxW
	if abbr <= 0 {
		abbr = 3
	}
	for i, name := range names {
		if short := strings.ToLower(name[:min(abbr, len(name))]); strings.HasPrefix(low, short) {
			return len(short), i
		}
	}
	return 0, -1
}

var zoneRE = regexp.MustCompile(`^([+-])(\d{1,2})(?::?(\d{2}))?`)

// parseZoneText reads Z, ±H, ±HH:MM or ±HHMM (after GMT for z).
func parseZoneText(s string, gmt bool, offset *int) (int, bool) {
	n := 0
	if gmt {
		if !strings.HasPrefix(s, "GMT") {
			return 0, false
		}
		n = 3
		s = s[3:]
	}
	if strings.HasPrefix(s, "Z") {
		*offset = 0
		return n + 1, true
	}
	m := zoneRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	h, _ := strconv.Atoi(m[2])
	mins := 0
	if m[3] != "" {
		mins, _ = strconv.Atoi(m[3])
	}
	*offset = h*60 + mins
	if m[1] == "-" {
		*offset = -*offset
	}
	return n + len(m[0]), true
}

// parseFraction reads fraction-of-second digits as milliseconds.
func parseFraction(s string, ms *int) (int, bool) {
	digits := leadingRun(s, func(r rune) bool { return r >= '0' && r <= '9' })
	if digits == "" {
		return 0, false
	}
	padded := (digits + "000")[:3]
	*ms, _ = strconv.Atoi(padded)
	return len(digits), true
}

// millis assembles the timestamp, failing with D3136 when the components
// leave a gap (for example a year and a day but no month).
func (f *dtFields) millis(now time.Time) (float64, bool, error) {
	if f.weekBased {
		return 0, false, newError("D3136", -1, "")
	}
	if f.hour12 >= 0 {
		f.hour = f.hour12 % 12
		if f.pm {
			f.hour += 12
		}
	}
	var parts []int
	if f.yday >= 0 {
		parts = []int{f.year, f.yday, f.yday, f.hour, f.minute, f.second, f.ms}
	} else {
		parts = []int{f.year, f.month, f.day, f.hour, f.minute, f.second, f.ms}
	}
	first, last := -1, -1
	for i, v := range parts {
		if v >= 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for i := first; i <= last; i++ {
		if parts[i] < 0 {
			return 0, false, newError("D3136", -1, "")
		}
	}
	nowParts := []int{now.Year(), int(now.Month()), now.Day(), now.Hour(), now.Minute(), now.Second(), 0}
	low := []int{0, 1, 1, 0, 0, 0, 0}
	for i := range parts {
		if parts[i] < 0 {
			if i < first {
				parts[i] = nowParts[i]
			} else {
				parts[i] = low[i]
			}
		}
	}
	var t time.Time
	if f.yday >= 0 {
		t = time.Date(parts[0], 1, 1, parts[3], parts[4], parts[5], parts[6]*1e6, time.UTC).AddDate(0, 0, f.yday-1)
	} else {
		t = time.Date(parts[0], time.Month(parts[1]), parts[2], parts[3], parts[4], parts[5], parts[6]*1e6, time.UTC)
	}
	return float64(t.UnixMilli()) - float64(f.offset)*60000, true, nil
}

var isoTimestampRE = regexp.MustCompile(`^(-?\d{4,})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?)?)?$`)

// parseISO reads an ISO 8601 timestamp; ok is false when it is not one.
func parseISO(s string) (float64, bool) {
	m := isoTimestampRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	num := func(i, def int) int {
		if m[i] == "" {
			return def
		}
		n, _ := strconv.Atoi(m[i])
		return n
	}
	ms := 0
	if m[7] != "" {
		frac := (m[7] + "000")[:3]
		ms, _ = strconv.Atoi(frac)
	}
	month, day := num(2, 1), num(3, 1)
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return 0, false
	}
	t := time.Date(num(1, 0), time.Month(month), day, num(4, 0), num(5, 0), num(6, 0), ms*1e6, time.UTC)
	offset := 0
	if z := m[8]; z != "" && z != "Z" {
		o, ok := parseOffset(z)
		if !ok {
			return 0, false
		}
		offset = o
	}
	v := float64(t.UnixMilli()) - float64(offset)*60000
	return v, !math.IsNaN(v)
}
