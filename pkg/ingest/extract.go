package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/jsonpath"
)

// maxAttributeLen is the width, in characters, of the idempotency_key,
// event_type and aggregate_id columns. A longer value is refused with 400
// instead of failing the insert with 500, which a sender would retry for
// ever.
const maxAttributeLen = 255

// attributes are the values that a source reads from the body.
type attributes struct {
	key         string
	eventType   *string
	aggregateID *string
}

// extractor holds the compiled paths of a source. eventType and
// aggregateID are nil when the source sets no path.
type extractor struct {
	key                    jsonpath.Path
	eventType, aggregateID *jsonpath.Path
	// keyFromHeader reads the key from keyHeaders instead of key.
	keyFromHeader bool
	// keyHeaders and eventTypeHeader are lower-case names of the body
	// order's header fallbacks (Source.IdempotencyKeyHeaders).
	keyHeaders      []string
	eventTypeHeader string
}

// extract reads the attributes of doc. The idempotency key is required: a
// path that finds nothing, null, an object, an array or an empty string
// fails. The event type and the aggregate identifier are optional: a path
// that finds nothing, no scalar or an empty string leaves them NULL. A
// value longer than its column, or one with a control character, fails. Every error message names the path.
// When the source reads the key or the event type from headers instead
// (Source.IdempotencyKeyHeaders), headers (lower-case names) give them.
func (x extractor) extract(doc any, headers map[string]string) (attributes, error) {
	if x.keyFromHeader {
		return x.headerExtract(doc, headers)
	}
	var a attributes
	v, found := x.key.Find(doc)
	if !found {
		return a, reasonf("Idempotency key not found at %s", x.key)
	}
	key, ok := jsonpath.ScalarString(v)
	switch {
	case !ok:
		return a, reasonf("Idempotency key at %s is not a string, number or boolean", x.key)
	case key == "":
		return a, reasonf("Idempotency key at %s is empty", x.key)
	case utf8.RuneCountInString(key) > maxAttributeLen:
		return a, reasonf("Idempotency key at %s is longer than %d characters", x.key, maxAttributeLen)
	}
	a.key = key
	return x.rest(a, doc, headers)
}

// rest reads the event type and the aggregate identifier after the key.
func (x extractor) rest(a attributes, doc any, headers map[string]string) (attributes, error) {
	var err error
	if x.eventType == nil && x.eventTypeHeader != "" {
		a.eventType, err = bounded("Event type in the "+x.eventTypeHeader+" header", headers[x.eventTypeHeader])
	} else {
		a.eventType, err = optional("Event type", x.eventType, doc)
	}
	if err != nil {
		return a, err
	}
	a.aggregateID, err = optional("Aggregate id", x.aggregateID, doc)
	return a, err
}

// headerExtract reads the key from the first of keyHeaders that holds a
// value. It is required like a key path, and bound by the same rules.
func (x extractor) headerExtract(doc any, headers map[string]string) (attributes, error) {
	var a attributes
	names := strings.Join(x.keyHeaders, " or ")
	key := ""
	for _, name := range x.keyHeaders {
		if key = strings.TrimSpace(headers[name]); key != "" {
			break
		}
	}
	switch {
	case key == "":
		return a, reasonf("Idempotency key not found in the %s header", names)
	case utf8.RuneCountInString(key) > maxAttributeLen:
		return a, reasonf("Idempotency key in the %s header is longer than %d characters", names, maxAttributeLen)
	case hasControl(key) || !storable(key):
		return a, reasonf("Idempotency key in the %s header holds a control character or invalid UTF-8", names)
	}
	a.key = key
	return x.rest(a, doc, headers)
}

// reason is an error whose message is the text of a 400 answer, which is
// why it starts with a capital letter.
type reason string

func (r reason) Error() string { return string(r) }

func reasonf(format string, args ...any) error { return reason(fmt.Sprintf(format, args...)) }

func optional(what string, p *jsonpath.Path, doc any) (*string, error) {
	if p == nil {
		return nil, nil
	}
	v, found := p.Find(doc)
	if !found {
		return nil, nil
	}
	s, ok := jsonpath.ScalarString(v)
	if !ok || s == "" {
		// An empty aggregate would serialize every such row as one
		// aggregate; the outbox treats an empty key as none, and so does
		// the inbox.
		return nil, nil
	}
	if utf8.RuneCountInString(s) > maxAttributeLen {
		return nil, reasonf("%s at %s is longer than %d characters", what, p, maxAttributeLen)
	}
	if hasControl(s) {
		return nil, reasonf("%s at %s holds a control character", what, p)
	}
	return &s, nil
}

// hasControl reports a C0 or C1 control character, DEL included. An event
// type becomes a topic and an aggregate identifier a key, which travel in
// headers, subjects and log lines, where a control character either fails
// every delivery or forges a line.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

// brokerExtract reads the attributes in the order of a broker source
// (26_Headers). Each comes from the first place that gives a non-empty
// value: the idempotency key from the header, the path, the broker's
// message id, then the SHA-256 digest of the body; the aggregate
// identifier from the path, the header, then the record key; the event
// type from the path, then the header. A path gives a scalar only, and
// parsed false (a body that is no usable document) skips the paths. A
// value longer than its column, or one the column refuses (NUL, invalid
// UTF-8, and a control character in the aggregate identifier or the event
// type) fails, and the attributes read before it are returned with the
// error.
func (x extractor) brokerExtract(doc any, parsed bool, m Message, names AttributeHeaders) (attributes, error) {
	var a attributes
	fromPath := func(p *jsonpath.Path) string {
		if !parsed || p == nil {
			return ""
		}
		v, _ := p.Find(doc)
		s, _ := jsonpath.ScalarString(v)
		return s
	}
	header := func(name string) string {
		if name == "" {
			return ""
		}
		return m.Headers[name]
	}
	key := firstOf(header(names.IdempotencyKey), fromPath(&x.key), m.Broker.MessageID, bodyDigest(m.Body))
	switch {
	case utf8.RuneCountInString(key) > maxAttributeLen:
		return a, reasonf("Idempotency key is longer than %d characters", maxAttributeLen)
	case !storable(key):
		// A header or a broker id is bytes: the key column refuses a NUL
		// and invalid UTF-8, so the dead row takes the digest instead.
		return a, reasonf("Idempotency key holds a NUL or invalid UTF-8")
	}
	a.key = key
	var err error
	aggregate := firstOf(fromPath(x.aggregateID), header(names.AggregateID), m.Broker.RecordKey)
	if a.aggregateID, err = bounded("Aggregate id", aggregate); err != nil {
		return a, err
	}
	a.eventType, err = bounded("Event type", firstOf(fromPath(x.eventType), header(names.EventType)))
	return a, err
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// bounded returns nil for "", and fails for a value longer than its
// column.
func bounded(what, v string) (*string, error) {
	switch {
	case v == "":
		return nil, nil
	case utf8.RuneCountInString(v) > maxAttributeLen:
		return nil, reasonf("%s is longer than %d characters", what, maxAttributeLen)
	case hasControl(v):
		return nil, reasonf("%s holds a control character", what)
	case !utf8.ValidString(v):
		return nil, reasonf("%s holds invalid UTF-8", what)
	}
	return &v, nil
}

// bodyDigest is the idempotency key of last resort of a broker source:
// "sha256:" and the hexadecimal SHA-256 digest of the body.
func bodyDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return "sha256:" + hex.EncodeToString(sum[:])
}
