package jsonata

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// isoPicture is the picture $fromMillis uses when none is given.
const isoPicture = "[Y0001]-[M01]-[D01]T[H01]:[m01]:[s01].[f001][Z01:01t]"

// formatDateTime renders millis (ms since the epoch) with a picture in a
// time zone offset (minutes east of UTC).
func formatDateTime(millis float64, markers []dtMarker, offset int) string {
	t := time.UnixMilli(int64(math.Floor(millis))).UTC().Add(time.Duration(offset) * time.Minute)
	var b strings.Builder
	for i := range markers {
		m := &markers[i]
		if m.component == 0 {
			b.WriteString(m.literal)
			continue
		}
		b.WriteString(m.formatComponent(t, offset))
	}
	return b.String()
}

func (m *dtMarker) formatComponent(t time.Time, offset int) string {
	switch m.component {
	case 'Y':
		return m.formatInt(t.Year())
	case 'M':
		if m.name != "" {
			return m.applyNameCase(monthNames[t.Month()-1])
		}
		return m.formatInt(int(t.Month()))
	case 'D':
		return m.formatInt(t.Day())
	case 'd':
		return m.formatInt(t.YearDay())
	case 'F':
		if m.name != "" {
			return m.applyNameCase(dayNames[isoWeekday(t)-1])
		}
		return m.formatInt(isoWeekday(t))
	case 'W':
		_, w := t.ISOWeek()
		return m.formatInt(w)
	case 'X':
		y, _ := t.ISOWeek()
		return m.formatInt(y)
	case 'w', 'x':
		month, week := weekOfMonth(t)
		if m.component == 'w' {
			return m.formatInt(week)
		}
		if m.name != "" {
			return m.applyNameCase(monthNames[month-1])
		}
		return m.formatInt(month)
	case 'H':
		return m.formatInt(t.Hour())
	case 'h':
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return m.formatInt(h)
	case 'P':
		if t.Hour() < 12 {
			return m.applyNameCase("am")
		}
		return m.applyNameCase("pm")
	case 'm':
		return m.formatInt(t.Minute())
	case 's':
		return m.formatInt(t.Second())
	case 'f':
		return m.formatFraction(t.Nanosecond() / 1e6)
	case 'Z':
		return formatZone(m.pres, offset, m.zulu)
	case 'z':
		return "GMT" + formatZone(m.pres, offset, false)
	}
	return "ISO"
}

// isoWeekday numbers days from Monday (1) to Sunday (7).
func isoWeekday(t time.Time) int {
	if t.Weekday() == time.Sunday {
		return 7
	}
	return int(t.Weekday())
}

// weekOfMonth returns the month a week belongs to (the month of its
// Thursday, weeks starting on Monday) and the week's number in it.
func weekOfMonth(t time.Time) (int, int) {
	thursday := t.AddDate(0, 0, 4-isoWeekday(t))
	return int(thursday.Month()), (thursday.Day()-1)/7 + 1
}

// formatInt renders a numeric component with its presentation and width.
func (m *dtMarker) formatInt(v int) string {
	if m.num == nil {
		return strconv.Itoa(v)
	}
	if m.component == 'Y' {
		if w := m.yearWidth(); w > 0 && len(strconv.Itoa(v)) > w {
			v %= int(math.Pow10(w))
		}
	}
	p := m.num
	if m.maxW > 0 && p.style == styleDecimal && p.mandatory > m.maxW {
		clipped := *p
		clipped.mandatory = m.maxW
		p = &clipped
	}
	s := p.format(float64(v))
	if m.num.style == styleDecimal && m.minW > 0 {
		if n := len([]rune(s)); n < m.minW {
			s = strings.Repeat(string(m.num.zero), m.minW-n) + s
		}
	}
	return s
}

// yearWidth is the number of digits a year is truncated to: the maximum
// width, the minimum width when no digit pattern is given, or the size of
// an explicit pattern of two or more digits.
func (m *dtMarker) yearWidth() int {
	if m.maxW > 0 {
		return m.maxW
	}
	if m.pres == "" {
		if m.widthSet && m.minW > 0 {
			return m.minW
		}
		return 0
	}
	if m.num.style == styleDecimal {
		if n := m.num.mandatory + m.num.optional; n >= 2 {
			return n
		}
	}
	return 0
}

// formatFraction renders milliseconds as fraction digits.
func (m *dtMarker) formatFraction(ms int) string {
	digits := 3
	if m.num != nil && m.num.style == styleDecimal {
		digits = m.num.mandatory + m.num.optional
	}
	s := fmt.Sprintf("%03d", ms)
	if digits < 3 {
		s = s[:max(digits, 1)]
	} else {
		s += strings.Repeat("0", digits-3)
	}
	if m.num != nil && m.num.zero != '0' {
		return (&intPicture{zero: m.num.zero}).mapASCII(s)
	}
	return s
}

// mapASCII maps ASCII digits into the picture's digit family.
func (p *intPicture) mapASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(p.zero + rune(s[i]-'0'))
	}
	return b.String()
}

// formatZone renders a UTC offset with a picture such as 01:01, 0101 or 0.
func formatZone(pic string, offset int, zulu bool) string {
	if zulu && offset == 0 {
		return "Z"
	}
	sign := "+"
	if offset < 0 {
		sign = "-"
		offset = -offset
	}
	h, mins := offset/60, offset%60
	sep := ""
	if i := strings.IndexFunc(pic, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		sep = pic[i : i+1]
	}
	nd := digitCount(pic)
	switch {
	case nd <= 2:
		s := sign + padInt(h, nd)
		if mins != 0 {
			s += ":" + padInt(mins, 2)
		}
		return s
	case sep != "":
		return sign + padInt(h, 2) + sep + padInt(mins, 2)
	}
	return sign + padInt(h, nd-2) + padInt(mins, 2)
}

func padInt(v, width int) string {
	s := strconv.Itoa(v)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// parseOffset reads a ±HHMM time zone argument into minutes.
func parseOffset(tz string) (int, bool) {
	sign := 1
	switch {
	case strings.HasPrefix(tz, "-"):
		sign = -1
		tz = tz[1:]
	case strings.HasPrefix(tz, "+"):
		tz = tz[1:]
	}
	tz = strings.ReplaceAll(tz, ":", "")
	if len(tz) != 4 {
		return 0, false
	}
	n, err := strconv.Atoi(tz)
	if err != nil {
		return 0, false
	}
	return sign * (n/100*60 + n%100), true
}
