package ingest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// The cap on the headers that one inbox row stores: their number, and the
// bytes of their names and values together. The HTTP source answers 431
// past either before it reads the body; Receive stores a message past
// either dead (dead-letter mode) or rejects it.
const (
	MaxStoredHeaders     = 64
	MaxStoredHeaderBytes = 16 << 10
)

// DeadBodyPrefix is how many bytes of a body past Transport.MaxBodyBytes
// its dead row keeps, as {"raw": text}: enough to tell the message, not
// enough to grow the inbox by the body.
const DeadBodyPrefix = 4 << 10

// HeadersTooLarge returns the text of the refusal when the headers that a
// row would store pass the cap, or "".
func HeadersTooLarge(stored map[string]string) string {
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

// capHeaders returns the headers of stored that fit the cap, taken in
// name order until the next one would pass it: what the dead row of a
// message past the cap keeps.
func capHeaders(stored map[string]string) map[string]string {
	out := make(map[string]string, min(len(stored), MaxStoredHeaders))
	n := 0
	for _, name := range slices.Sorted(maps.Keys(stored)) {
		size := len(name) + len(stored[name])
		if len(out) == MaxStoredHeaders || n+size > MaxStoredHeaderBytes {
			break
		}
		out[name], n = stored[name], n+size
	}
	return out
}

// headersPastCap returns the failure of a message whose stored headers
// pass the cap, and cuts them on rc to those that fit (capHeaders); nil
// when they fit.
func headersPastCap(rc *receipt) *failure {
	msg := HeadersTooLarge(rc.row.Headers)
	if msg == "" {
		return nil
	}
	rc.row.Headers = capHeaders(rc.row.Headers)
	return &failure{reason: ReasonExtractionFailed, message: msg, stage: "headers",
		detail: msg + "; the row keeps those that fit", permanent: true}
}

// bodyPastCap returns the failure of a body past Transport.MaxBodyBytes,
// whose dead row keeps its first DeadBodyPrefix bytes as {"raw": text};
// nil when it fits or the receiver sets no bound.
func (r *Receiver) bodyPastCap(rc receipt) *failure {
	if r.maxBody <= 0 || int64(len(rc.body)) <= r.maxBody {
		return nil
	}
	return &failure{reason: ReasonExtractionFailed,
		message: fmt.Sprintf("Request body exceeds %d bytes", r.maxBody), stage: "size",
		detail: fmt.Sprintf("body of %d bytes exceeds inbox.maxBodyBytes (%d bytes); the payload keeps its first %d bytes",
			len(rc.body), r.maxBody, DeadBodyPrefix),
		permanent: true, raw: true, cut: true}
}

// prefix returns at most n bytes of b, cut before a character that would
// not fit whole.
func prefix(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	cut := n
	for cut > 0 && cut > n-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	if !utf8.RuneStart(b[cut]) {
		cut = n // not UTF-8 near the cut: the raw payload is Base64 anyway
	}
	return b[:cut]
}

// cleanText makes s storable in a JSON column, as the correlation id is
// cleaned: invalid UTF-8 becomes U+FFFD and NUL goes, which PostgreSQL
// refuses in jsonb (other control characters are stored escaped). It
// returns s itself when there is nothing to clean.
func cleanText(s string) string {
	if storable(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// storable reports whether a text or JSON column of PostgreSQL takes s:
// valid UTF-8 without NUL.
func storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// cleanHeaders returns received with every name and value cleaned by
// cleanText, or received itself when none needs it. Two names that clean
// to one keep the value of the last in sorted order of the received
// names, so the choice is stable.
func cleanHeaders(received map[string]string) map[string]string {
	dirty := false
	for name, v := range received {
		if !storable(name) || !storable(v) {
			dirty = true
			break
		}
	}
	if !dirty {
		return received
	}
	out := make(map[string]string, len(received))
	for _, name := range slices.Sorted(maps.Keys(received)) {
		out[cleanText(name)] = cleanText(received[name])
	}
	return out
}
