package jsonata

import (
	"math"
	"strconv"
	"strings"
)

// formatNumber renders f the way JavaScript's Number.prototype.toString
// does: the shortest digits that round-trip, in fixed notation for
// exponents from -7 to 20 and in exponential notation otherwise.
func formatNumber(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return jsDigits(strconv.FormatFloat(f, 'e', -1, 64))
}

// jsDigits turns Go's exponential form ("-1.2345e+06") into the JavaScript
// string form of the same digits.
func jsDigits(e string) string {
	neg := strings.HasPrefix(e, "-")
	if neg {
		e = e[1:]
	}
	mant, expPart, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expPart)
	digits := strings.Replace(mant, ".", "", 1)
	k := len(digits)
	n := exp + 1
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case k <= n && n <= 21:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		b.WriteString(digits[:n])
		b.WriteByte('.')
		b.WriteString(digits[n:])
	case -6 < n && n <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -n))
		b.WriteString(digits)
	default:
		b.WriteByte(digits[0])
		if k > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if n-1 >= 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(n - 1))
	}
	return b.String()
}

// roundPrecision15 rounds a non-integer to 15 significant digits, the way
// JSONata's $string does to hide binary floating point noise.
func roundPrecision15(f float64) float64 {
	if f == math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'e', 14, 64), 64)
	if err != nil {
		return f
	}
	return r
}
