package httpdest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// userAgent identifies QueueBox to receivers. A static header or a header
// of a row that the application wrote can replace it.
const userAgent = "QueueBox"

// standardHeaders are the headers that QueueBox itself sets on a delivery.
// No other header group removes them: a later header of the same name adds
// a second value, as the headers reference documents.
var standardHeaders = map[string]bool{
	"Content-Type":  true,
	"X-Message-Id":  true,
	"X-Topic":       true,
	"X-Attempt":     true,
	"X-Message-Key": true,
}

// reservedNames returns the canonical names that the publisher sets on
// every request: the standard headers, User-Agent, the static headers and
// the auth header. A relayed row never sends a header of these names
// (queuebox.RowHeaders).
func reservedNames(static map[string]string, a *Auth) map[string]bool {
	out := map[string]bool{"User-Agent": true}
	for name := range standardHeaders {
		out[name] = true
	}
	for name := range static {
		out[http.CanonicalHeaderKey(name)] = true
	}
	if a != nil {
		name := DefaultAuthHeaderName
		if strings.EqualFold(a.Kind, AuthHeader) {
			name = a.headerName()
		}
		out[http.CanonicalHeaderKey(name)] = true
	}
	return out
}

// buildHeader returns the headers of one delivery, group by group: the
// standard headers, the static destination headers, the auth header, and
// last the row headers that queuebox.RowHeaders lets through. A later
// group replaces an earlier header of the same name in any letter case,
// except a standard header, which keeps its value next to the new one.
// A relayed row's headers never reach a reserved name, so only a row that
// the application wrote can replace or extend one.
func buildHeader(m *queuebox.OutboxMessage, static map[string]string, cred credential, reserved map[string]bool) http.Header {
	row := queuebox.RowHeaders(m.Headers, func(name string) bool { return reserved[http.CanonicalHeaderKey(name)] })
	h := make(http.Header, 8+len(static)+len(row))
	h.Set("User-Agent", userAgent)
	h.Set("Content-Type", "application/json")
	h.Set("X-Message-Id", m.ID)
	h.Set("X-Topic", m.Topic)
	h.Set("X-Attempt", strconv.Itoa(m.Attempt))
	if m.Key != "" {
		h.Set("X-Message-Key", m.Key)
	}
	setGroup(h, static)
	if cred.name != "" {
		setOne(h, cred.name, cred.value)
	}
	setGroup(h, row)
	return h
}

// setGroup applies one header group in sorted name order, so that two
// names that differ only in letter case resolve the same way every time.
func setGroup(h http.Header, group map[string]string) {
	names := make([]string, 0, len(group))
	for name := range group {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		setOne(h, name, group[name])
	}
}

// setOne replaces the header name unless it is a standard header, which it
// extends instead.
func setOne(h http.Header, name, value string) {
	if standardHeaders[http.CanonicalHeaderKey(name)] {
		h.Add(name, value)
		return
	}
	h.Set(name, value)
}
