// Package redact removes credentials from text that leaves the process as a
// log line or a stored error, such as the body of a failed HTTP response.
//
// A Redactor masks two things: the values of secrets that it was told
// about, wherever they appear, and the value of any key that usually
// carries a credential (password, token, authorization, cookie, ...) in the
// shapes that error bodies and dumps use: JSON and JSON-like objects, form
// and query strings, header lines, bearer and basic credentials, XML
// elements and URL user info. Every mask is the string "***".
package redact

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// Mask replaces every secret that a Redactor finds.
const Mask = "***"

// Redactor masks credentials in text. It is immutable once built, so one
// value is safe for concurrent use by any number of goroutines. A nil
// *Redactor is valid: it knows no secret values but still applies the key
// rules.
type Redactor struct {
	// values holds every known secret and its encoded forms, longest
	// first, without duplicates and without empty strings.
	values []string
}

// New returns a Redactor that masks the given secret values and the values
// of secret-bearing keys. Empty values are ignored; any other value, however
// short, is masked. Each value is also masked in the forms in which a server
// commonly echoes it: URL query encoding, URL path encoding and JSON string
// escaping.
func New(secrets ...string) *Redactor {
	return (*Redactor)(nil).With(secrets...)
}

// With returns a new Redactor that knows the secrets of r plus the given
// ones. r itself does not change, so a shared Redactor can be extended per
// request, for example with a freshly fetched access token.
func (r *Redactor) With(secrets ...string) *Redactor {
	var values []string
	if r != nil {
		values = slices.Clone(r.values)
	}
	for _, s := range secrets {
		values = append(values, variants(s)...)
	}
	// Longest first: where two known values overlap, the longer one decides
	// the masked span, and the tail rule below prefers the longest prefix.
	slices.SortFunc(values, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return &Redactor{values: slices.Compact(values)}
}

// variants returns s and the encodings under which a server may echo it.
func variants(s string) []string {
	if s == "" {
		return nil
	}
	out := []string{s, url.QueryEscape(s), url.PathEscape(s)}
	if b, err := json.Marshal(s); err == nil {
		// json.Marshal also escapes <, > and &, which some encoders do not;
		// the plain form below covers those.
		out = append(out, string(b[1:len(b)-1]))
	}
	plain := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
	return append(out, plain)
}

// Redact returns text with every known secret value and the value of every
// secret-bearing key replaced by Mask. Known values are masked first, so a
// key rule never sees a partial secret.
func (r *Redactor) Redact(text string) string {
	return applyRules(r.maskKnown(text, false))
}

// RedactTruncated is Redact for text that is the head of a longer stream,
// such as the first bytes of a response body. A known secret that the cut
// split in two leaves its start at the end of text; RedactTruncated masks
// that start too, which Redact cannot recognise.
func (r *Redactor) RedactTruncated(text string) string {
	return applyRules(r.maskKnown(text, true))
}

// maskKnown replaces every byte covered by an occurrence of a known value.
// It marks spans first and rewrites once, so overlapping secrets (one
// ending where another starts, or one inside another) leave no fragment.
func (r *Redactor) maskKnown(text string, truncated bool) string {
	if r == nil || len(r.values) == 0 || text == "" {
		return text
	}
	var spans []span
	for _, v := range r.values {
		spans = appendOccurrences(spans, text, v)
	}
	if truncated {
		spans = r.appendTail(spans, text)
	}
	return maskSpans(text, spans)
}

// appendTail adds the span of the longest known-value prefix that ends text.
func (r *Redactor) appendTail(spans []span, text string) []span {
	best := 0
	for _, v := range r.values {
		for k := min(len(v)-1, len(text)); k > best; k-- {
			if strings.HasSuffix(text, v[:k]) {
				best = k
				break
			}
		}
	}
	if best > 0 {
		spans = append(spans, span{len(text) - best, len(text)})
	}
	return spans
}
