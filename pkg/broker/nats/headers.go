package nats

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	gonats "github.com/nats-io/nats.go"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The standard headers of a NATS delivery (26_Headers).
const (
	HeaderMessageID  = "x-message-id"
	HeaderTopic      = "x-topic"
	HeaderAttempt    = "x-attempt"
	HeaderMessageKey = "x-message-key"
)

// buildHeader returns the headers of one publish: the standard headers,
// then the static headers, then the row headers that queuebox.RowHeaders
// lets through. A row header replaces a
// static header of the same name in any letter case; a static or row
// header never removes a standard one and adds a value next to it. Names
// are kept as configured (NATS headers are case-sensitive).
func buildHeader(m *queuebox.OutboxMessage, static map[string]string) gonats.Header {
	h := gonats.Header{}
	h[HeaderMessageID] = []string{m.MessageID()}
	h[HeaderTopic] = []string{m.Topic}
	h[HeaderAttempt] = []string{strconv.Itoa(m.Attempt)}
	if m.HasKey {
		h[HeaderMessageKey] = []string{m.Key}
	}
	// A relayed row can neither replace a static header nor extend a
	// standard one (queuebox.RowHeaders); a row the application wrote
	// keeps the documented precedence.
	row := queuebox.RowHeaders(m.Headers,
		queuebox.Reserved([]string{HeaderMessageID, HeaderTopic, HeaderAttempt, HeaderMessageKey}, static))
	extra := map[string][2]string{} // lower-case name -> name, value
	for _, group := range []map[string]string{static, row} {
		for _, name := range sortedNames(group) {
			extra[strings.ToLower(name)] = [2]string{name, group[name]}
		}
	}
	for _, lower := range sortedNames(extra) {
		name, value := extra[lower][0], extra[lower][1]
		if standard(lower) {
			// The standard header is stored under its lower-case name; a
			// second value joins it there.
			h[lower] = append(h[lower], value)
			continue
		}
		h[name] = append(h[name], value)
	}
	return h
}

func standard(lower string) bool {
	switch lower {
	case HeaderMessageID, HeaderTopic, HeaderAttempt, HeaderMessageKey:
		return true
	}
	return false
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// checkHeaders refuses a header that the NATS protocol cannot carry: a
// name with a colon, a space or a control character, or a value with a
// line break. Errors name the header but never quote its value.
func checkHeaders(what string, h map[string]string) error {
	for name, value := range h {
		if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == ':' || r == 0x7f }) {
			return fmt.Errorf("%s %q: invalid header name", what, name)
		}
		if strings.ContainsAny(value, "\r\n") {
			return fmt.Errorf("%s %q: invalid header value (line break)", what, name)
		}
	}
	return nil
}
