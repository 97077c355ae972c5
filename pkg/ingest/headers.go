package ingest

import (
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/google/uuid"
)

// CorrelationHeader carries the correlation identifier in and out.
const CorrelationHeader = "X-Correlation-Id"

// maxCorrelationLen is the width of the correlation_id column, in
// characters.
const maxCorrelationLen = 128

// alwaysOmitted are the lower-case names of the headers that no source
// stores, whatever its auth block.
var alwaysOmitted = []string{"authorization", "proxy-authorization", "cookie"}

// receivedHeaders returns the request headers one value per lower-case
// name; a repeated name keeps its last value. Go moves Host out of the
// header map, so it is put back: it is a received header like the others.
func receivedHeaders(r *http.Request) map[string]string {
	out := make(map[string]string, len(r.Header)+1)
	for name, values := range r.Header {
		if len(values) > 0 {
			out[strings.ToLower(name)] = values[len(values)-1]
		}
	}
	if r.Host != "" {
		out["host"] = r.Host
	}
	return out
}

// The cap on the headers that one inbox row stores: their number, and the
// bytes of their names and values together. A request past either gets
// 431 before its body is read; the server itself answers 431 past
// run.MaxHeaderBytes for the request head as a whole.
const (
	MaxStoredHeaders     = 64
	MaxStoredHeaderBytes = 16 << 10
)

// headersTooLarge returns the text of the 431 answer when the headers
// that a row would store pass the cap, or "".
func headersTooLarge(stored map[string]string) string {
	if len(stored) > MaxStoredHeaders {
		return fmt.Sprintf("Request headers exceed %d headers", MaxStoredHeaders)
	}
	n := 0
	for name, v := range stored {
		n += len(name) + len(v)
	}
	if n > MaxStoredHeaderBytes {
		return fmt.Sprintf("Request headers exceed %d bytes", MaxStoredHeaderBytes)
	}
	return ""
}

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
