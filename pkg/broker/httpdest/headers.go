package httpdest

import (
	"maps"
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

// headerPair is one header of a group, its name as configured and the
// canonical form that the header map is keyed by.
type headerPair struct{ name, canonical, value string }

// sortedGroup returns a header group in sorted name order, so that two
// names that differ only in letter case resolve the same way every time.
// The publisher sorts its static headers once, at New; a row's headers
// are sorted per delivery.
func sortedGroup(group map[string]string) []headerPair {
	if len(group) == 0 {
		return nil
	}
	out := make([]headerPair, 0, len(group))
	for name, value := range group {
		out = append(out, headerPair{name: name, canonical: http.CanonicalHeaderKey(name), value: value})
	}
	slices.SortFunc(out, func(a, b headerPair) int { return strings.Compare(a.name, b.name) })
	return out
}

// rowGroup returns the row headers that every request of one publish
// sends, sorted by sortedGroup: those that queuebox.RowHeaders lets
// through, less, on a relayed row, the reserved names. Publish computes
// it once and hands it to each request (a second one follows a 401).
// The error is checkRow's, for a row that no attempt can send; it checks
// every header a delivery may carry, a relayed row's reserved ones too.
func rowGroup(m *queuebox.OutboxMessage, reserved map[string]bool) ([]headerPair, error) {
	var row map[string]string
	if len(m.Headers) > 0 {
		row = queuebox.RowHeaders(m.Headers, nil)
	}
	if err := checkRow(m, row); err != nil {
		return nil, err
	}
	if len(row) > 0 && queuebox.Relayed(m.Headers) {
		// RowHeaders' rule for a relayed row, applied to the headers it
		// already let through rather than computed again.
		maps.DeleteFunc(row, func(name, _ string) bool { return reserved[http.CanonicalHeaderKey(name)] })
	}
	return sortedGroup(row), nil
}

// buildHeader returns the headers of one request, group by group: the
// standard headers, the static destination headers (sorted by
// sortedGroup), the auth header, and last the row's group (rowGroup). A
// later group replaces an earlier header of the same name in any letter
// case, except a standard header, which keeps its value next to the new
// one. A relayed row's headers never reach a reserved name, so only a
// row that the application wrote can replace or extend one.
//
// It runs once per request, so it allocates little: the single values of
// the standard headers share one array (each slice capped at its one
// value, so that a second value copies instead of overwriting the next
// header's).
func buildHeader(m *queuebox.OutboxMessage, static, row []headerPair, cred credential) http.Header {
	h := make(http.Header, 7+len(static)+len(row))
	v := [...]string{userAgent, "application/json", m.MessageID(), m.Topic, strconv.Itoa(m.Attempt), m.Key}
	vals := v[:]
	h["User-Agent"] = vals[0:1:1]
	h["Content-Type"] = vals[1:2:2]
	h["X-Message-Id"] = vals[2:3:3]
	h["X-Topic"] = vals[3:4:4]
	h["X-Attempt"] = vals[4:5:5]
	if m.Key != "" {
		h["X-Message-Key"] = vals[5:6:6]
	}
	setGroup(h, static)
	if cred.name != "" {
		setOne(h, http.CanonicalHeaderKey(cred.name), cred.value)
	}
	setGroup(h, row)
	return h
}

// setGroup applies one sorted header group.
func setGroup(h http.Header, group []headerPair) {
	for _, p := range group {
		setOne(h, p.canonical, p.value)
	}
}

// setOne replaces the header of the canonical name unless it is a
// standard header, which it extends instead.
func setOne(h http.Header, canonical, value string) {
	if standardHeaders[canonical] {
		h[canonical] = append(h[canonical], value)
		return
	}
	h[canonical] = []string{value}
}
