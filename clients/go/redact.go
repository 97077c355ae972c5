package queuebox

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// mask replaces every credential that Sanitize finds.
const mask = "***"

// maxErrorLength is the most bytes of a reason that SanitizeError keeps,
// the server's default for last_error (http.maxErrorBodyBytes).
const maxErrorLength = 2048

// secretKeys are the names whose value is a credential, in any letter
// case, longest first so that an alternation takes "client_secret" before
// "secret".
var secretKeys = strings.Join([]string{
	"client_secret", "clientsecret", "access_token", "accesstoken",
	"refresh_token", "refreshtoken", "id_token", "x-auth-token", "auth_token", "private_key",
	"proxy-authorization", "authorization", "set-cookie", "cookie", "session",
	"x-api-key", "api_key", "api-key", "apikey", "password", "passwd", "pwd",
	"secret", "token",
}, "|")

// redactions mask the group named "v" of every match, in order. A value
// that runs to the end of the text is masked too, so a cut-short value
// does not escape.
var redactions = []*regexp.Regexp{
	// "password": "x" and 'token': 'x' in JSON and JSON-like text.
	regexp.MustCompile(`(?is)["'](?:` + secretKeys + `)["']\s*:\s*"(?P<v>(?:[^"\\]|\\.)*)`),
	regexp.MustCompile(`(?is)["'](?:` + secretKeys + `)["']\s*:\s*'(?P<v>(?:[^'\\]|\\.)*)`),
	// "pwd": 1234, an unquoted value.
	regexp.MustCompile(`(?i)["'](?:` + secretKeys + `)["']\s*:\s*(?P<v>-?[0-9][0-9a-z.+\-]*)`),
	// token=x in a form body or a query string, not mytoken=x.
	regexp.MustCompile(`(?i)(?:^|[^a-z0-9_\-])(?:` + secretKeys + `)=(?P<v>[^&\s"'<>;,]+)`),
	// "Authorization: Bearer x" and "x-api-key: x" header or YAML lines;
	// the scheme name stays readable.
	regexp.MustCompile(`(?im)^[ \t]*(?:` + secretKeys + `)[ \t]*:[ \t]*` +
		`(?:(?:bearer|basic|digest|token|negotiate)[ \t]+)?(?P<v>[^\r\n]*[^\s])`),
	// <password>x</password>.
	regexp.MustCompile(`(?i)<(?:` + secretKeys + `)>(?P<v>[^<]+)`),
	// The password of URL user info, scheme://user:password@host.
	regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.\-]*://[^/\s:@]*:(?P<v>[^/\s@]+)@`),
}

// bearer finds a bearer or basic credential inside a sentence.
var bearer = regexp.MustCompile(`(?i)\b(?:bearer|basic)[ \t]+(?P<v>[a-z0-9\-._~+/]+=*)`)

// prose are the words that follow "Bearer" or "Basic" in an error
// sentence ("Bearer token required"); they are not credentials.
var prose = map[string]bool{
	"a": true, "an": true, "and": true, "auth": true, "authentication": true,
	"authorization": true, "credential": true, "credentials": true, "error": true,
	"expired": true, "for": true, "header": true, "invalid": true, "is": true,
	"missing": true, "not": true, "or": true, "realm": true, "required": true,
	"scheme": true, "the": true, "token": true, "tokens": true, "was": true, "with": true,
}

// Sanitize returns text with the value of every secret-bearing key masked
// as "***", by the rules that QueueBox applies to its own log lines and
// last_error values: JSON and JSON-like pairs, form and query pairs,
// header and YAML lines, XML elements, bearer and basic credentials and
// the password of URL user info. The keys are client_secret (and
// clientSecret), access_token (accessToken), refresh_token (refreshToken),
// id_token, x-auth-token, auth_token, private_key, proxy-authorization,
// authorization, set-cookie, cookie, session, x-api-key, api_key, api-key,
// apikey, password, passwd, pwd, secret and token, in any letter case. An empty
// value stays empty. Sanitize does not cut the text.
func Sanitize(text string) string {
	for _, re := range redactions {
		text = maskGroup(re, text, nil)
	}
	return maskGroup(bearer, text, func(v string) bool { return !prose[strings.ToLower(v)] })
}

// SanitizeError returns the error's text through Sanitize, cut to at most
// 2048 bytes without splitting a UTF-8 character: the value the library
// stores in last_error. A nil error gives "".
func SanitizeError(err error) string {
	if err == nil {
		return ""
	}
	return cut(Sanitize(err.Error()), maxErrorLength)
}

// maskGroup masks the "v" group of every match of re that keep accepts.
func maskGroup(re *regexp.Regexp, text string, keep func(string) bool) string {
	g := re.SubexpIndex("v")
	var b strings.Builder
	done := 0
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[2*g], m[2*g+1]
		if start < 0 || start == end || start < done || text[start:end] == mask {
			continue
		}
		if keep != nil && !keep(text[start:end]) {
			continue
		}
		b.WriteString(text[done:start])
		b.WriteString(mask)
		done = end
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

// cut returns the longest prefix of text of at most n bytes that does not
// end inside a valid UTF-8 character.
func cut(text string, n int) string {
	if len(text) <= n {
		return text
	}
	i := n
	for i > 0 && n-i < utf8.UTFMax && !utf8.RuneStart(text[i]) {
		i--
	}
	if r, size := utf8.DecodeRuneInString(text[i:]); r != utf8.RuneError && i+size > n {
		return text[:i]
	}
	return text[:n]
}
