package httpdest

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// URL rule violations. The errors never quote the URL itself: a rejected
// URL may carry the very credential that the rule keeps out.
var (
	ErrNotAbsoluteHTTP = errors.New("must be an absolute http or https URL")
	ErrNoHost          = errors.New("must name a host")
	ErrUserInfo        = errors.New("must not hold a user name or a password")
	ErrDotSegment      = errors.New(`must not hold a "." or ".." segment`)
)

// CheckURL reports whether raw may serve as a destination baseUrl or an
// OAuth2 tokenUrl: an absolute http or https URL with a host and a valid
// port, and without user info. Credentials belong in the auth block, where
// QueueBox masks them, not in a URL that logs print.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the input; keep only the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%w: %v", ErrNotAbsoluteHTTP, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Opaque != "" {
		return ErrNotAbsoluteHTTP
	}
	if u.User != nil {
		return ErrUserInfo
	}
	if u.Hostname() == "" {
		return ErrNoHost
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%w: port %q is out of range", ErrNotAbsoluteHTTP, p)
		}
	}
	return nil
}

// CheckPath reports whether p may serve as a destination path. A "." or
// ".." segment, also in percent-encoded form or between backslashes, could
// climb out of the base URL path once a server normalises it, so it is
// refused. A fragment and control characters are refused too: a fragment
// never reaches the server, and a control character cannot travel in a
// request line. The empty path is valid and means "/".
func CheckPath(p string) error {
	if strings.ContainsAny(p, "#") {
		return errors.New("must not hold a fragment (#)")
	}
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return errors.New("must not hold a control character")
	}
	pathPart, _, _ := strings.Cut(p, "?")
	for _, seg := range strings.FieldsFunc(pathPart, func(r rune) bool { return r == '/' || r == '\\' }) {
		if dec, err := url.PathUnescape(seg); err == nil {
			seg = dec
		}
		if seg == "." || seg == ".." {
			return ErrDotSegment
		}
	}
	return nil
}

// JoinURL returns the request URL of a destination: base followed by path,
// with exactly one slash between them. A query in base or in path is kept,
// base query first. It checks base with CheckURL and path with CheckPath.
func JoinURL(base, path string) (string, error) {
	if err := CheckURL(base); err != nil {
		return "", fmt.Errorf("baseUrl %w", err)
	}
	if err := CheckPath(path); err != nil {
		return "", fmt.Errorf("path %w", err)
	}
	base, _, _ = strings.Cut(base, "#")
	base, baseQuery, _ := strings.Cut(base, "?")
	path, pathQuery, _ := strings.Cut(path, "?")
	joined := strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
	query := strings.Trim(baseQuery+"&"+pathQuery, "&")
	if query != "" {
		joined += "?" + query
	}
	// Parse the result once more: it must still be a valid URL of the same
	// shape, so nothing in path can change the host.
	if err := CheckURL(joined); err != nil {
		return "", fmt.Errorf("path %w", err)
	}
	return joined, nil
}
