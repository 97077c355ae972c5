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
