package ingest

import (
	"strings"
	"unicode"

	"github.com/google/uuid"
)

// maxCorrelationLen is the width of the correlation_id column, in
// characters.
const maxCorrelationLen = 128

// alwaysOmitted are the lower-case names of the headers that no source
// stores, whatever its auth block.
var alwaysOmitted = []string{"authorization", "proxy-authorization", "cookie"}

// untrustedTraceHeaders are the lower-case names of the trace headers
// that a source stores only when it trusts the senders' trace context:
// vendor state and baggage that the sender chose, which the relay would
// otherwise pass on to every receiver.
var untrustedTraceHeaders = []string{"tracestate", "baggage"}

// storedHeaders copies received without the omitted names (lower case).
func storedHeaders(received map[string]string, omit map[string]bool) map[string]string {
	out := make(map[string]string, len(received))
	for name, v := range received {
		if !omit[name] {
			out[name] = v
		}
	}
	return out
}

// correlationID cleans the received X-Correlation-Id: control characters
// go, invalid UTF-8 becomes U+FFFD, and at most 128 characters stay. A
// value that is empty after cleaning is replaced by a new UUID, as is an
// absent one.
func correlationID(raw string) string {
	clean := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(raw, "\uFFFD"))
	if clean == "" {
		return uuid.NewString()
	}
	if runes := []rune(clean); len(runes) > maxCorrelationLen {
		clean = string(runes[:maxCorrelationLen])
	}
	return clean
}
