package redact

import (
	"regexp"
	"strings"
)

// keys are the names whose value is a credential, matched in any letter
// case. Longer names come first so that an alternation prefers
// "client_secret" over "secret" at the same position.
const keys = `client_secret|clientsecret|access_token|accesstoken|` +
	`refresh_token|refreshtoken|id_token|x-auth-token|auth_token|private_key|` +
	`proxy-authorization|authorization|set-cookie|cookie|session|` +
	`x-api-key|api_key|api-key|apikey|password|passwd|pwd|secret|token`

// rule masks the submatch named "v" of every match of re. accept, when set,
// keeps a match whose value it rejects unchanged.
type rule struct {
	re     *regexp.Regexp
	accept func(value string) bool
}

// rules run in order on text whose known secret values are already masked.
// A value group stops at the end of text as well as at its terminator, so a
// value that a truncation cut short is still masked.
var rules = []rule{
	// JSON or JSON-like objects: "password": "x", 'token': 'x', "pwd": 1234.
	{re: regexp.MustCompile(`(?is)["'](?:` + keys + `)["']\s*:\s*"(?P<v>(?:[^"\\]|\\.)*)`)},
	{re: regexp.MustCompile(`(?is)["'](?:` + keys + `)["']\s*:\s*'(?P<v>(?:[^'\\]|\\.)*)`)},
	{re: regexp.MustCompile(`(?i)["'](?:` + keys + `)["']\s*:\s*(?P<v>-?[0-9][0-9a-z.+\-]*)`)},
	// Form bodies and query strings: client_secret=x&scope=y. The key must
	// not continue a longer name, so "mytoken=1" stays.
	{re: regexp.MustCompile(`(?i)(?:^|[^a-z0-9_\-])(?:` + keys + `)=(?P<v>[^&\s"'<>;,]+)`)},
	// Header and YAML lines: "X-Api-Key: x", "Authorization: Bearer x". An
	// authentication scheme stays readable; the credential after it goes.
	{re: regexp.MustCompile(`(?im)^[ \t]*(?:` + keys + `)[ \t]*:[ \t]*` +
		`(?:(?:bearer|basic|digest|token|negotiate)[ \t]+)?(?P<v>[^\r\n]*[^\s])`)},
	// XML elements: <password>x</password>.
	{re: regexp.MustCompile(`(?i)<(?:` + keys + `)>(?P<v>[^<]+)`)},
	// A bearer or basic credential anywhere, for example inside an error
	// sentence. A few common words after the scheme are prose and stay.
	{re: regexp.MustCompile(`(?i)\b(?:bearer|basic)[ \t]+(?P<v>[a-z0-9\-._~+/]+=*)`), accept: notProse},
	// The password of URL user info: scheme://user:password@host.
	{re: regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.\-]*://[^/\s:@]*:(?P<v>[^/\s@]+)@`)},
}

// applyRules masks the value of every secret-bearing key in text.
func applyRules(text string) string {
	for _, r := range rules {
		text = r.apply(text)
	}
	return text
}

// apply masks the value group of every match; an empty value stays empty,
// so an absent credential does not look present.
func (r rule) apply(text string) string {
	group := r.re.SubexpIndex("v")
	matches := r.re.FindAllStringSubmatchIndex(text, -1)
	var spans []span
	for _, m := range matches {
		start, end := m[2*group], m[2*group+1]
		if start < 0 || start == end || text[start:end] == Mask {
			continue
		}
		if r.accept != nil && !r.accept(text[start:end]) {
			continue
		}
		spans = append(spans, span{start, end})
	}
	return maskSpans(text, spans)
}

// prose holds the words that follow "Bearer" or "Basic" in ordinary error
// sentences ("Bearer token required", "Basic authentication failed").
var prose = map[string]bool{
	"a": true, "an": true, "and": true, "auth": true, "authentication": true,
	"authorization": true, "credential": true, "credentials": true, "error": true,
	"expired": true, "for": true, "header": true, "invalid": true, "is": true,
	"missing": true, "not": true, "or": true, "realm": true, "required": true,
	"scheme": true, "the": true, "token": true, "tokens": true, "was": true, "with": true,
}

// notProse reports whether v may be a credential, that is, it is not one of
// the words that an error sentence puts after a scheme name.
func notProse(v string) bool { return !prose[strings.ToLower(v)] }
