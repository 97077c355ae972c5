package kafka

import (
	"encoding/base64"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The standard headers of a Kafka delivery (26_Headers).
const (
	HeaderMessageID = "x-message-id"
	HeaderTopic     = "x-topic"
	HeaderAttempt   = "x-attempt"
)

// buildHeaders returns the record headers of one publish: the standard
// headers, then the static and row headers in the order of their
// lower-case names. A row header replaces a static header of the same name in
// any letter case; neither removes a standard header, so a static or row
// header with a standard name is a second record header of that name. The
// row headers are those queuebox.RowHeaders lets through: a relayed row
// (one that a webhook sender's headers reached) can neither replace a
// static header nor add a standard name, and hop-by-hop and forwarding
// headers never go out.
func buildHeaders(m *queuebox.OutboxMessage, static map[string]string) []ckafka.Header {
	h := []ckafka.Header{
		{Key: HeaderMessageID, Value: []byte(m.MessageID())},
		{Key: HeaderTopic, Value: []byte(m.Topic)},
		{Key: HeaderAttempt, Value: []byte(strconv.Itoa(m.Attempt))},
	}
	row := queuebox.RowHeaders(m.Headers, queuebox.Reserved([]string{HeaderMessageID, HeaderTopic, HeaderAttempt}, static))
	extra := map[string][2]string{} // lower-case name -> name, value
	for _, group := range []map[string]string{static, row} {
		for _, name := range sortedNames(group) {
			extra[strings.ToLower(name)] = [2]string{name, group[name]}
		}
	}
	for _, lower := range sortedNames(extra) {
		h = append(h, ckafka.Header{Key: extra[lower][0], Value: []byte(extra[lower][1])})
	}
	return h
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// receivedHeaders converts the record headers for ingest.Message (28_Inbox_table):
// one value per lower-case name, where a repeated name keeps its last
// value; a value is its UTF-8 text, or "base64:" and its Base64 text when
// it is not valid UTF-8. A header with a nil value (Kafka's null) and one
// with an empty value both become "": the inbox headers column holds
// strings only, and the header filter's exists rule still sees the name.
func receivedHeaders(hs []ckafka.Header) map[string]string {
	out := make(map[string]string, len(hs))
	for _, h := range hs {
		out[strings.ToLower(h.Key)] = text(h.Value)
	}
	return out
}

// text is b as UTF-8 text, or "base64:" and its Base64 when it is not
// valid UTF-8.
func text(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return "base64:" + base64.StdEncoding.EncodeToString(b)
}
