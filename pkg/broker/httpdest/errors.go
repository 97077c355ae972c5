package httpdest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/alternayte/queuebox/pkg/netguard"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// drainLimit bounds the bytes read from a body only to keep its connection
// reusable. A longer body costs a new connection instead of the time to
// read it.
const drainLimit = 64 << 10

// Error is a failed publish: a status outside 2xx, a refused redirect, a
// token endpoint failure, a timeout or a connection error. Its text never
// holds a known secret: every part that came from outside (response body,
// Location header, transport error) is redacted, and the body is cut to
// MaxErrorBodyBytes.
type Error struct {
	// Destination is the destination name.
	Destination string
	// StatusCode is the status of the failed response, 0 when no response
	// arrived. With TokenRequest it is the token endpoint's status.
	StatusCode int
	// Body is the start of the response body, redacted and truncated.
	Body string
	// TokenRequest is true when the OAuth2 token request failed, so no
	// publish request was sent.
	TokenRequest bool
	// RetryAfter is the Retry-After header of a 429 or 503 answer, empty
	// otherwise (see Pause).
	RetryAfter string

	msg string
	// blocked is true when the private-address guard refused the
	// connection: no attempt can succeed (queuebox.ErrUndeliverable).
	blocked bool
	// cause is context.Canceled or context.DeadlineExceeded, or nil. The
	// transport error itself is not kept: its text can hold a secret that
	// a caller could print through errors.Unwrap.
	cause error
}

// Error returns the redacted description.
func (e *Error) Error() string { return e.msg }

// HTTPStatusCode returns StatusCode; tracing reads it through an
// interface, so it needs no import of this package.
func (e *Error) HTTPStatusCode() int { return e.StatusCode }

// Unwrap returns context.Canceled or context.DeadlineExceeded when the
// attempt ended that way, so errors.Is works on them, and nil otherwise.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is queuebox.ErrUndeliverable and the
// private-address guard refused the connection.
func (e *Error) Is(target error) bool { return e.blocked && target == queuebox.ErrUndeliverable }

// Timeout reports whether the request ran out of time.
func (e *Error) Timeout() bool { return errors.Is(e.cause, context.DeadlineExceeded) }

// stage names what failed in an error text: the publish itself or the
// token request that precedes it.
func (p *Publisher) stage(token bool) string {
	prefix := destPrefix(p.opts.Name)
	if token {
		return prefix + ": oauth2 token request"
	}
	return prefix
}

// destPrefix starts every error text of the destination name.
func destPrefix(name string) string {
	if name == "" {
		return "http destination"
	}
	return "http destination " + name
}

// statusError describes a response outside 2xx and closes its body.
func (p *Publisher) statusError(resp *http.Response, token bool, r *redact.Redactor) *Error {
	defer drainClose(resp.Body)
	e := &Error{Destination: p.opts.Name, StatusCode: resp.StatusCode, TokenRequest: token}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		e.RetryAfter = resp.Header.Get("Retry-After")
	}
	e.Body = readErrorBody(resp.Body, p.opts.MaxErrorBodyBytes, r)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: status %d %s", p.stage(token), resp.StatusCode, http.StatusText(resp.StatusCode))
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		b.WriteString(" (redirects are not followed")
		if loc := resp.Header.Get("Location"); loc != "" {
			fmt.Fprintf(&b, "; Location: %s", r.Redact(redact.Truncate(loc, p.opts.MaxErrorBodyBytes)))
		}
		b.WriteString(")")
	}
	if e.Body != "" {
		b.WriteString(": " + e.Body)
	}
	e.msg = b.String()
	return e
}

// transportError describes a request that got no response. ctx is the
// caller's context: when it is still live, a deadline error came from the
// publisher's own timeout, which the text then states.
func (p *Publisher) transportError(ctx context.Context, err error, token bool, r *redact.Redactor) *Error {
	e := &Error{Destination: p.opts.Name, TokenRequest: token}
	var blocked *netguard.BlockedError
	if errors.As(err, &blocked) {
		e.blocked = true
		e.msg = fmt.Sprintf("%s: %s", p.stage(token), blocked.Reason())
		return e
	}
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		e.cause = context.DeadlineExceeded
	case errors.As(err, &netErr) && netErr.Timeout():
		// The dial and the TLS handshake have bounds of their own (half
		// the timeout each); running out of one is the same timeout.
		e.cause = context.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		e.cause = context.Canceled
	}
	text := r.Redact(sanitize(err.Error()))
	if e.cause == context.DeadlineExceeded && ctx.Err() == nil {
		text += fmt.Sprintf(" (timeout %s)", p.opts.Timeout)
	}
	e.msg = fmt.Sprintf("%s: no response: %s", p.stage(token), text)
	return e
}

// readErrorBody returns at most limit bytes of body as valid UTF-8 text,
// with secrets masked. It redacts before the final cut, and treats a body
// longer than limit as truncated, so a secret that the cut split is masked
// as well.
func readErrorBody(body io.Reader, limit int, r *redact.Redactor) string {
	raw, err := io.ReadAll(io.LimitReader(body, int64(limit)+1))
	if err != nil && len(raw) == 0 {
		return ""
	}
	// A read error mid-body also leaves a head whose tail may be cut short.
	cut := len(raw) > limit || err != nil
	text := sanitize(redact.Truncate(string(raw), limit))
	if cut {
		text = r.RedactTruncated(text)
	} else {
		text = r.Redact(text)
	}
	return redact.Truncate(text, limit)
}

// sanitize makes text storable in a PostgreSQL text column and safe in a
// log line: invalid UTF-8 becomes U+FFFD and NUL bytes go.
func sanitize(text string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\x00", "")
}

// drainClose reads what is left of a body, up to drainLimit, and closes it,
// so that the keep-alive connection returns to the pool.
func drainClose(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, drainLimit)
	_ = body.Close()
}
