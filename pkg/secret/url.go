package secret

import (
	"regexp"
	"strings"
)

// passwordParam matches a password carried as a URL or JDBC parameter, for
// example ?password=x, &password=x or ;password=x.
// A SQL Server JDBC value may be braced, {like;this}, to hold a semicolon.
var passwordParam = regexp.MustCompile(`(?i)([?&;](?:password|pwd)=)(?:\{[^}]*\}?|[^&;]*)`)

// MaskURL returns the URL with every password replaced by ***: the user info
// password of postgres://, amqp:// or sqlserver:// URLs and the password
// parameters of JDBC URLs. Text that is not a URL comes back with only the
// parameter rule applied.
func MaskURL(raw string) string {
	masked := passwordParam.ReplaceAllString(raw, "${1}***")
	prefix := ""
	rest := masked
	if strings.HasPrefix(strings.ToLower(rest), "jdbc:") {
		prefix, rest = rest[:5], rest[5:]
	}
	schemeEnd := strings.Index(rest, "://")
	if schemeEnd < 0 {
		return masked
	}
	afterScheme := rest[schemeEnd+3:]
	at := userInfoEnd(afterScheme)
	if at < 0 {
		return masked
	}
	userinfo := afterScheme[:at]
	if colon := strings.Index(userinfo, ":"); colon >= 0 {
		userinfo = userinfo[:colon] + ":***"
	}
	return prefix + rest[:schemeEnd+3] + userinfo + afterScheme[at:]
}

// userInfoEnd returns the index of the "@" that ends the user information
// of what follows "://", or -1. A well-formed URL has it inside the
// authority. A password that holds an unencoded "/", "?", "#" or ";" pushes
// it further right; then the last "@" counts when a ":" comes before the
// first of those characters. That can mask more than the password of a URL
// whose parameters hold an "@", never less.
func userInfoEnd(afterScheme string) int {
	hostEnd := strings.IndexAny(afterScheme, "/?;#")
	if hostEnd < 0 {
		hostEnd = len(afterScheme)
	}
	if at := strings.LastIndex(afterScheme[:hostEnd], "@"); at >= 0 {
		return at
	}
	at := strings.LastIndex(afterScheme, "@")
	if at < 0 || !strings.Contains(afterScheme[:hostEnd], ":") {
		return -1
	}
	return at
}

// MaskedURL is a URL string that prints with its password masked.
type MaskedURL string

// String returns the masked form.
func (u MaskedURL) String() string { return MaskURL(string(u)) }
