package jsonata

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// intStyle is the presentation of an integer picture (XPath format-integer).
type intStyle uint8

const (
	styleDecimal intStyle = iota
	styleAlphaUpper
	styleAlphaLower
	styleRomanUpper
	styleRomanLower
	styleWordsUpper
	styleWordsLower
	styleWordsTitle
	styleName // month and day names in date pictures
)

// intPicture is a parsed integer picture such as "#,##0;o" or "Ww".
type intPicture struct {
	style     intStyle
	ordinal   bool
	zero      rune // first digit of the decimal digit family
	mandatory int  // mandatory digits (minimum width)
	optional  int  // optional digits (#)
	seps      []groupSep
	regular   int // grouping size when separators are regular, else 0
}

// groupSep is a grouping separator and the number of digits to its right.
type groupSep struct {
	pos int
	sep rune
}

// parseIntPicture parses a format-integer picture: a primary token and an
// optional ;modifier (o for ordinal).
func parseIntPicture(picture string) (*intPicture, error) {
	p := &intPicture{}
	token := picture
	if i := strings.LastIndexByte(picture, ';'); i >= 0 {
		token = picture[:i]
		p.ordinal = strings.ContainsRune(picture[i+1:], 'o')
	}
	switch token {
	case "A":
		p.style = styleAlphaUpper
	case "a":
		p.style = styleAlphaLower
	case "I":
		p.style = styleRomanUpper
	case "i":
		p.style = styleRomanLower
	case "W":
		p.style = styleWordsUpper
	case "w":
		p.style = styleWordsLower
	case "Ww":
		p.style = styleWordsTitle
	default:
		return p, p.parseDigits(token)
	}
	return p, nil
}

// parseDigits analyses a decimal digit pattern.
func (p *intPicture) parseDigits(token string) error {
	p.style = styleDecimal
	runes := []rune(token)
	if len(runes) == 0 {
		return newError("D3130", -1, "", `""`)
	}
	count := 0
	for i := len(runes) - 1; i >= 0; i-- {
		r := runes[i]
		switch {
		case unicode.IsDigit(r):
			z := digitZero(r)
			if p.zero != 0 && z != p.zero {
				return newError("D3131", -1, "")
			}
			p.zero = z
			p.mandatory++
			count++
		case r == '#':
			p.optional++
			count++
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			return newError("D3130", -1, "", string(runes[0]))
		default:
			p.seps = append(p.seps, groupSep{pos: count, sep: r})
		}
	}
	if p.mandatory == 0 {
		return newError("D3130", -1, "", string(runes[0]))
	}
	p.regular = regularGrouping(p.seps)
	return nil
}

// regularGrouping returns the group size when the separators are one
// character at every multiple of that size, else 0.
func regularGrouping(seps []groupSep) int {
	if len(seps) == 0 {
		return 0
	}
	g := seps[0].pos
	for _, s := range seps {
		if s.pos < g {
			g = s.pos
		}
	}
	if g <= 0 {
		return 0
	}
	have := map[int]bool{}
	for _, s := range seps {
		if s.sep != seps[0].sep || s.pos%g != 0 {
			return 0
		}
		have[s.pos] = true
	}
	for pos := g; pos <= len(seps)*g; pos += g {
		if !have[pos] {
			return 0
		}
	}
	return g
}

// digitZero returns the zero of the decimal digit family of r.
func digitZero(r rune) rune {
	start := r
	for i := 0; i < 64 && unicode.IsDigit(start-1); i++ {
		start--
	}
	return r - (r-start)%10
}

// format renders n (already an integer) with the picture.
func (p *intPicture) format(n float64) string {
	neg := n < 0
	n = math.Abs(n)
	var s string
	switch p.style {
	case styleAlphaUpper, styleAlphaLower:
		s = alphaFormat(n, p.style == styleAlphaUpper)
	case styleRomanUpper, styleRomanLower:
		s = romanFormat(n)
		if p.style == styleRomanLower {
			s = strings.ToLower(s)
		}
	case styleWordsUpper, styleWordsLower, styleWordsTitle:
		s = numberWords(n, p.ordinal)
		switch p.style {
		case styleWordsUpper:
			s = strings.ToUpper(s)
		case styleWordsTitle:
			s = titleWords(s)
		}
		return signed(s, neg)
	default:
		s = p.formatDigits(n)
		if p.ordinal {
			s += ordinalSuffix(n)
		}
	}
	return signed(s, neg)
}

func signed(s string, neg bool) string {
	if neg {
		return "-" + s
	}
	return s
}

// formatDigits renders the decimal digits with padding and grouping.
func (p *intPicture) formatDigits(n float64) string {
	digits := strconv.FormatFloat(n, 'f', 0, 64)
	if len(digits) < p.mandatory {
		digits = strings.Repeat("0", p.mandatory-len(digits)) + digits
	}
	var out []rune
	count := 0
	next := 0
	seps := p.seps
	for i := len(digits) - 1; i >= 0; i-- {
		if count > 0 {
			if p.regular > 0 && count%p.regular == 0 {
				out = append(out, seps[0].sep)
			} else if p.regular == 0 && next < len(seps) && seps[next].pos == count {
				out = append(out, seps[next].sep)
				next++
			}
		}
		out = append(out, p.zero+rune(digits[i]-'0'))
		count++
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

func ordinalSuffix(n float64) string {
	last2 := math.Mod(n, 100)
	if last2 >= 11 && last2 <= 13 {
		return "th"
	}
	switch math.Mod(n, 10) {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

func alphaFormat(n float64, upper bool) string {
	base := 'a'
	if upper {
		base = 'A'
	}
	var out []rune
	for v := int64(n); v > 0; v = (v - 1) / 26 {
		out = append([]rune{base + rune((v-1)%26)}, out...)
	}
	return string(out)
}

var romanTable = []struct {
	v int64
	s string
}{
	{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"},
	{50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"},
}

func romanFormat(n float64) string {
	v := int64(n)
	if v > 100000 {
		return strconv.FormatInt(v, 10)
	}
	var b strings.Builder
	for _, e := range romanTable {
		for v >= e.v {
			b.WriteString(e.s)
			v -= e.v
		}
	}
	return b.String()
}

func romanParse(s string) (float64, bool) {
	s = strings.ToUpper(s)
	total := int64(0)
	for s != "" {
		matched := false
		for _, e := range romanTable {
			if strings.HasPrefix(s, e.s) {
				total += e.v
				s = s[len(e.s):]
				matched = true
				break
			}
		}
		if !matched {
			return 0, false
		}
	}
	return float64(total), true
}

func alphaParse(s string) (float64, bool) {
	total := 0.0
	for _, r := range strings.ToLower(s) {
		if r < 'a' || r > 'z' {
			return 0, false
		}
		total = total*26 + float64(r-'a'+1)
	}
	return total, true
}

// titleWords capitalises each word except "and".
func titleWords(s string) string {
	var b strings.Builder
	start := true
	words := strings.Fields(s)
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w == "and" {
			b.WriteString(w)
			continue
		}
		start = true
		for _, r := range w {
			if start {
				b.WriteRune(unicode.ToUpper(r))
			} else {
				b.WriteRune(r)
			}
			start = r == '-'
		}
	}
	return b.String()
}

// parse reads an integer written with the picture; ok is false when the
// text does not match.
func (p *intPicture) parse(s string) (float64, bool) {
	switch p.style {
	case styleAlphaUpper, styleAlphaLower:
		return alphaParse(s)
	case styleRomanUpper, styleRomanLower:
		return romanParse(s)
	case styleWordsUpper, styleWordsLower, styleWordsTitle:
		return parseWords(s)
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	v := 0.0
	digits := 0
	for _, r := range s {
		if d := r - p.zero; d >= 0 && d <= 9 {
			v = v*10 + float64(d)
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// digitRuneLen returns the byte length of the leading run of digits of
// family zero and separators in s (used when parsing dates).
func (p *intPicture) digitRuneLen(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if d := r - p.zero; d < 0 || d > 9 {
			break
		}
		n += size
	}
	return n
}
