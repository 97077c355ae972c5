package jsonata

import (
	"math"
	"strings"
)

var smallWords = []string{
	"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
}

var tensWords = []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}

var scaleWords = []struct {
	v    float64
	word string
}{{1e12, "trillion"}, {1e9, "billion"}, {1e6, "million"}, {1e3, "thousand"}}

// ordinalWords maps the irregular ordinal words to their cardinal forms.
var ordinalWords = map[string]string{
	"zeroth": "zero", "first": "one", "second": "two", "third": "three", "fifth": "five",
	"eighth": "eight", "ninth": "nine", "twelfth": "twelve",
}

// numberWords writes n in English words, the way XPath format-integer
// does for the w picture ("one thousand, two hundred and three").
func numberWords(n float64, ordinal bool) string {
	s := cardinalWords(math.Floor(n))
	if !ordinal {
		return s
	}
	cut := strings.LastIndexAny(s, " -")
	last := s[cut+1:]
	return s[:cut+1] + ordinalOf(last)
}

func ordinalOf(word string) string {
	for ord, card := range ordinalWords {
		if card == word {
			return ord
		}
	}
	if strings.HasSuffix(word, "y") {
		return word[:len(word)-1] + "ieth"
	}
	return word + "th"
}

func cardinalWords(n float64) string {
	switch {
	case n < 20:
		return smallWords[int(n)]
	case n < 100:
		s := tensWords[int(n)/10]
		if r := int(n) % 10; r > 0 {
			s += "-" + smallWords[r]
		}
		return s
	case n < 1000:
		s := smallWords[int(n)/100] + " hundred"
		if r := int(n) % 100; r > 0 {
			s += " and " + cardinalWords(float64(r))
		}
		return s
	}
	for _, sc := range scaleWords {
		if n >= sc.v {
			q := math.Floor(n / sc.v)
			r := n - q*sc.v
			s := cardinalWords(q) + " " + sc.word
			switch {
			case r <= 0:
			case r < 100:
				s += " and " + cardinalWords(r)
			default:
				s += ", " + cardinalWords(r)
			}
			return s
		}
	}
	return ""
}

// parseWords reads a number written in English words, cardinal or
// ordinal, in any letter case.
func parseWords(s string) (float64, bool) {
	s = strings.ToLower(strings.ReplaceAll(s, ",", " "))
	var words []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' }) {
		if w == "and" {
			continue
		}
		words = append(words, cardinalForm(w))
	}
	if len(words) == 0 {
		return 0, false
	}
	return wordsValue(words)
}

// cardinalForm turns an ordinal word into its cardinal.
func cardinalForm(w string) string {
	if c, ok := ordinalWords[w]; ok {
		return c
	}
	if strings.HasSuffix(w, "ieth") {
		return w[:len(w)-4] + "y"
	}
	if strings.HasSuffix(w, "th") && wordValue(w[:len(w)-2]) >= 0 {
		return w[:len(w)-2]
	}
	return w
}

// wordValue returns the value of a unit or tens word, or -1.
func wordValue(w string) float64 {
	for i, sw := range smallWords {
		if sw == w {
			return float64(i)
		}
	}
	for i, tw := range tensWords {
		if tw != "" && tw == w {
			return float64(i * 10)
		}
	}
	if w == "hundred" {
		return 100
	}
	for _, sc := range scaleWords {
		if sc.word == w {
			return sc.v
		}
	}
	return -1
}

// wordsValue evaluates words by splitting at the last occurrence of the
// largest scale word: value(left) * scale + value(right).
func wordsValue(words []string) (float64, bool) {
	best, at := 0.0, -1
	for i, w := range words {
		if v := wordValue(w); v >= 100 && v >= best {
			best, at = v, i
		}
	}
	if at < 0 {
		total := 0.0
		for _, w := range words {
			v := wordValue(w)
			if v < 0 {
				return 0, false
			}
			total += v
		}
		return total, true
	}
	left, right := 1.0, 0.0
	if at > 0 {
		var ok bool
		if left, ok = wordsValue(words[:at]); !ok {
			return 0, false
		}
	}
	if at+1 < len(words) {
		var ok bool
		if right, ok = wordsValue(words[at+1:]); !ok {
			return 0, false
		}
	}
	return left*best + right, true
}
