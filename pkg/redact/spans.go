package redact

import (
	"cmp"
	"slices"
	"strings"
)

// span is the half-open byte range [start, end) of text to mask.
type span struct{ start, end int }

// appendOccurrences adds a span for every occurrence of v in text,
// overlapping occurrences included ("aa" occurs twice in "aaa").
func appendOccurrences(spans []span, text, v string) []span {
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], v)
		if i < 0 {
			break
		}
		start := from + i
		spans = append(spans, span{start, start + len(v)})
		from = start + 1
	}
	return spans
}

// maskSpans replaces each maximal run of bytes covered by spans with one
// Mask. Touching or overlapping spans merge, so two adjacent secrets come
// out as a single mask and reveal no boundary between them.
func maskSpans(text string, spans []span) string {
	if len(spans) == 0 {
		return text
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	b.Grow(len(text))
	done := 0 // bytes of text already written or masked
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start <= end; i++ {
			end = max(end, spans[i].end)
		}
		b.WriteString(text[done:start])
		b.WriteString(Mask)
		done = end
	}
	b.WriteString(text[done:])
	return b.String()
}
