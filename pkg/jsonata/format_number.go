package jsonata

import (
	"math"
	"strconv"
	"strings"
)

// decimalFormat holds the characters of an XPath decimal format.
type decimalFormat struct {
	decimalSep, groupSep, expSep, zero, digit, patternSep rune
	percent, perMille, minus, infinity, nan               string
}

func defaultDecimalFormat() decimalFormat {
	return decimalFormat{
		decimalSep: '.', groupSep: ',', expSep: 'e', percent: "%", perMille: "‰",
		zero: '0', digit: '#', patternSep: ';', minus: "-", infinity: "Infinity", nan: "NaN",
	}
}

// applyOptions overrides properties from the $formatNumber options object.
func (f *decimalFormat) applyOptions(opts any) {
	runeOpt := func(key string, dst *rune) {
		if s, ok := objectGetOr(opts, key).(string); ok && s != "" {
			*dst = []rune(s)[0]
		}
	}
	strOpt := func(key string, dst *string) {
		if s, ok := objectGetOr(opts, key).(string); ok {
			*dst = s
		}
	}
	runeOpt("decimal-separator", &f.decimalSep)
	runeOpt("grouping-separator", &f.groupSep)
	runeOpt("exponent-separator", &f.expSep)
	runeOpt("zero-digit", &f.zero)
	runeOpt("digit", &f.digit)
	runeOpt("pattern-separator", &f.patternSep)
	strOpt("percent", &f.percent)
	strOpt("per-mille", &f.perMille)
	strOpt("minus-sign", &f.minus)
	strOpt("infinity", &f.infinity)
	strOpt("NaN", &f.nan)
}

func (f *decimalFormat) isDigit(r rune) bool {
	return r == f.digit || (r >= f.zero && r <= f.zero+9)
}

func (f *decimalFormat) isMandatory(r rune) bool { return r >= f.zero && r <= f.zero+9 }

func (f *decimalFormat) isMantissa(r rune) bool {
	return f.isDigit(r) || r == f.decimalSep || r == f.groupSep
}

// subPicture is one analysed half of a format-number picture.
type subPicture struct {
	prefix, suffix       string
	intPart, fracPart    []rune
	expPart              []rune
	hasExp, hasDecimal   bool
	percent, perMille    bool
	minInt, scale        int
	minFrac, maxFrac     int
	minExp               int
	intHasDigit          bool
	intGroups, fracGroup []int
	regular              int
}

// parseNumberPicture splits and analyses a picture, returning the error
// codes D3080-D3093 for invalid pictures.
func (f *decimalFormat) parseNumberPicture(picture string) ([]*subPicture, error) {
	parts := strings.Split(picture, string(f.patternSep))
	if len(parts) > 2 {
		return nil, newError("D3080", -1, "")
	}
	var subs []*subPicture
	for _, p := range parts {
		sp, err := f.analyse([]rune(p))
		if err != nil {
			return nil, err
		}
		subs = append(subs, sp)
	}
	return subs, nil
}

func (f *decimalFormat) analyse(pic []rune) (*subPicture, error) {
	sp := &subPicture{}
	start := -1
	for i, r := range pic {
		if f.isMantissa(r) {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, newError("D3086", -1, "")
	}
	end := start
	for end < len(pic) && f.isMantissa(pic[end]) {
		end++
	}
	mantissa := pic[start:end]
	rest := pic[end:]
	if len(rest) > 1 && rest[0] == f.expSep && f.isDigit(rest[1]) {
		sp.hasExp = true
		j := 1
		for j < len(rest) && f.isMantissa(rest[j]) {
			j++
		}
		sp.expPart = rest[1:j]
		rest = rest[j:]
	}
	sp.prefix, sp.suffix = string(pic[:start]), string(rest)
	if strings.Count(string(mantissa), string(f.decimalSep)) > 1 {
		return nil, newError("D3081", -1, "")
	}
	if err := f.checkMarkers(sp); err != nil {
		return nil, err
	}
	if err := f.splitMantissa(sp, mantissa); err != nil {
		return nil, err
	}
	for _, r := range sp.suffix {
		if f.isMantissa(r) {
			return nil, newError("D3086", -1, "")
		}
	}
	return sp, f.checkParts(sp)
}

// checkMarkers counts percent and per-mille signs in the prefix and suffix.
func (f *decimalFormat) checkMarkers(sp *subPicture) error {
	passive := sp.prefix + sp.suffix
	pc := strings.Count(passive, f.percent)
	pm := strings.Count(passive, f.perMille)
	switch {
	case pc > 1:
		return newError("D3082", -1, "")
	case pm > 1:
		return newError("D3083", -1, "")
	case pc > 0 && pm > 0:
		return newError("D3084", -1, "")
	}
	sp.percent, sp.perMille = pc == 1, pm == 1
	return nil
}

func (f *decimalFormat) splitMantissa(sp *subPicture, mantissa []rune) error {
	sp.intPart = mantissa
	for i, r := range mantissa {
		if r == f.decimalSep {
			sp.hasDecimal = true
			sp.intPart, sp.fracPart = mantissa[:i], mantissa[i+1:]
			break
		}
	}
	digits := 0
	for _, r := range mantissa {
		if f.isDigit(r) {
			digits++
		}
	}
	if digits == 0 {
		return newError("D3085", -1, "")
	}
	return nil
}

// checkParts applies the remaining picture rules and computes the sizes.
func (f *decimalFormat) checkParts(sp *subPicture) error {
	ip, fp := sp.intPart, sp.fracPart
	if sp.hasDecimal && ((len(ip) > 0 && ip[len(ip)-1] == f.groupSep) || (len(fp) > 0 && fp[0] == f.groupSep)) {
		return newError("D3087", -1, "")
	}
	if !sp.hasDecimal && len(ip) > 0 && ip[len(ip)-1] == f.groupSep {
		return newError("D3088", -1, "")
	}
	all := append(append([]rune{}, ip...), fp...)
	for i := 1; i < len(all); i++ {
		if all[i] == f.groupSep && all[i-1] == f.groupSep {
			return newError("D3089", -1, "")
		}
	}
	seenMandatory := false
	for _, r := range ip {
		if f.isMandatory(r) {
			seenMandatory = true
		} else if r == f.digit && seenMandatory {
			return newError("D3090", -1, "")
		}
	}
	seenOptional := false
	for _, r := range fp {
		if r == f.digit {
			seenOptional = true
		} else if f.isMandatory(r) && seenOptional {
			return newError("D3091", -1, "")
		}
	}
	if sp.hasExp && (sp.percent || sp.perMille) {
		return newError("D3092", -1, "")
	}
	for _, r := range sp.expPart {
		if !f.isMandatory(r) {
			return newError("D3093", -1, "")
		}
	}
	f.computeSizes(sp)
	return nil
}

func (f *decimalFormat) computeSizes(sp *subPicture) {
	count := 0
	for i := len(sp.intPart) - 1; i >= 0; i-- {
		r := sp.intPart[i]
		switch {
		case f.isDigit(r):
			count++
			sp.intHasDigit = true
			if f.isMandatory(r) {
				sp.minInt++
			}
		case r == f.groupSep:
			sp.intGroups = append(sp.intGroups, count)
		}
	}
	count = 0
	for _, r := range sp.fracPart {
		switch {
		case f.isDigit(r):
			count++
			sp.maxFrac++
			if f.isMandatory(r) {
				sp.minFrac++
			}
		case r == f.groupSep:
			sp.fracGroup = append(sp.fracGroup, count)
		}
	}
	sp.minExp = len(sp.expPart)
	sp.scale = sp.minInt
	if sp.minInt == 0 && sp.maxFrac == 0 {
		if sp.hasExp {
			sp.minFrac, sp.maxFrac = 1, 1
		} else {
			sp.minInt = 1
		}
	}
	seps := make([]groupSep, len(sp.intGroups))
	for i, p := range sp.intGroups {
		seps[i] = groupSep{pos: p, sep: f.groupSep}
	}
	sp.regular = regularGrouping(seps)
}

// formatNumberPicture formats v with an analysed picture.
func (f *decimalFormat) format(v float64, subs []*subPicture) string {
	if math.IsNaN(v) {
		return f.nan
	}
	sp := subs[0]
	prefix := sp.prefix
	if v < 0 {
		if len(subs) > 1 {
			sp = subs[1]
			prefix = sp.prefix
		} else {
			prefix = f.minus + prefix
		}
	}
	v = math.Abs(v)
	switch {
	case sp.percent:
		v *= 100
	case sp.perMille:
		v *= 1000
	}
	if math.IsInf(v, 0) {
		return prefix + f.infinity + sp.suffix
	}
	var b strings.Builder
	b.WriteString(prefix)
	intDigits, fracDigits, exponent := f.digitsFor(v, sp)
	b.WriteString(f.groupInt(intDigits, sp))
	if fracDigits != "" {
		b.WriteRune(f.decimalSep)
		b.WriteString(f.groupFrac(fracDigits, sp))
	}
	if sp.hasExp {
		b.WriteRune(f.expSep)
		if exponent < 0 {
			b.WriteString(f.minus)
			exponent = -exponent
		}
		e := strconv.Itoa(exponent)
		if len(e) < sp.minExp {
			e = strings.Repeat("0", sp.minExp-len(e)) + e
		}
		b.WriteString(f.mapDigits(e))
	}
	b.WriteString(sp.suffix)
	return b.String()
}

// digitsFor rounds v for the picture and returns its integer and fraction
// digits (ASCII) and, with an exponent, the exponent.
func (f *decimalFormat) digitsFor(v float64, sp *subPicture) (string, string, int) {
	exponent := 0
	var ip, fp string
	if sp.hasExp && v != 0 {
		digits, e := decimalParts(v)
		for {
			exponent = e - sp.scale
			ip, fp = splitDigits(digits, sp.scale)
			ip, fp = roundFixed(ip, fp, sp.maxFrac)
			if len(ip) <= sp.scale {
				break
			}
			digits, e = strings.TrimRight(ip+fp, "0"), e+1
		}
	} else {
		ip, fp = fixedParts(v)
		ip, fp = roundFixed(ip, fp, sp.maxFrac)
	}
	ip = strings.TrimLeft(ip, "0")
	if len(ip) < sp.minInt {
		ip = strings.Repeat("0", sp.minInt-len(ip)) + ip
	}
	if ip == "" && sp.intHasDigit && !(sp.hasDecimal && len(sp.fracPart) > 0 && !sp.hasExp) {
		ip = "0"
	}
	for len(fp) > sp.minFrac && fp[len(fp)-1] == '0' {
		fp = fp[:len(fp)-1]
	}
	for len(fp) < sp.minFrac {
		fp += "0"
	}
	return ip, fp, exponent
}

func (f *decimalFormat) mapDigits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(f.zero + rune(s[i]-'0'))
	}
	return b.String()
}

func (f *decimalFormat) groupInt(digits string, sp *subPicture) string {
	var out []rune
	next := 0
	for i := len(digits) - 1; i >= 0; i-- {
		count := len(digits) - 1 - i
		if count > 0 {
			if sp.regular > 0 && count%sp.regular == 0 {
				out = append(out, f.groupSep)
			} else if sp.regular == 0 && next < len(sp.intGroups) && sp.intGroups[next] == count {
				out = append(out, f.groupSep)
				next++
			}
		}
		out = append(out, f.zero+rune(digits[i]-'0'))
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

func (f *decimalFormat) groupFrac(digits string, sp *subPicture) string {
	var b strings.Builder
	next := 0
	for i := 0; i < len(digits); i++ {
		if next < len(sp.fracGroup) && sp.fracGroup[next] == i && i > 0 {
			b.WriteRune(f.groupSep)
			next++
		}
		b.WriteRune(f.zero + rune(digits[i]-'0'))
	}
	return b.String()
}

// decimalParts returns the significant digits of v > 0 and the exponent e
// with v = 0.digits × 10^e.
func decimalParts(v float64) (string, int) {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
	e, _ := strconv.Atoi(exp)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	return digits, e + 1
}

// splitDigits places the decimal point after the first n digits.
func splitDigits(digits string, n int) (string, string) {
	if n >= len(digits) {
		return digits + strings.Repeat("0", n-len(digits)), ""
	}
	return digits[:n], digits[n:]
}

// fixedParts returns the integer and fraction digits of v >= 0.
func fixedParts(v float64) (string, string) {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	ip, fp, _ := strings.Cut(s, ".")
	return ip, fp
}

// roundFixed rounds ip.fp to maxFrac fraction digits, half to even.
func roundFixed(ip, fp string, maxFrac int) (string, string) {
	if len(fp) <= maxFrac {
		return ip, fp
	}
	kept, rest := fp[:maxFrac], fp[maxFrac:]
	up := rest[0] > '5'
	if rest[0] == '5' {
		if strings.Trim(rest[1:], "0") != "" {
			up = true
		} else {
			all := ip + kept
			up = all != "" && (all[len(all)-1]-'0')%2 == 1
		}
	}
	if !up {
		return ip, kept
	}
	digits := []byte(ip + kept)
	i := len(digits) - 1
	for ; i >= 0; i-- {
		if digits[i] < '9' {
			digits[i]++
			break
		}
		digits[i] = '0'
	}
	if i < 0 {
		digits = append([]byte{'1'}, digits...)
	}
	n := len(digits) - len(kept)
	return string(digits[:n]), string(digits[n:])
}
